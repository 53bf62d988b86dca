/*
 * The registry of kernel families: one line per family. Each X(name) needs
 * kernels/name.cu defining `const struct sw_family sw_family_name`.
 * CMake reads this list to find the sources.
 */
X(strided_read)
X(offset_read)
X(float3)
X(rowsum)
X(transpose)
X(smem_bank)
X(matmul)
X(histogram)
X(reduce)
X(constant_read)
X(texture_read)
X(index_read)
