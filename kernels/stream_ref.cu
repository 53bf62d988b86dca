/* The shared streaming-read reference (stream_ref.cuh). */
#include "stream_ref.cuh"

#include "common.cuh"

#include <stdio.h>

__global__ void sw_stream_read_kernel(const float4 *__restrict__ a, float *__restrict__ out,
				      uint64_t n4)
{
	uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	float4 acc = make_float4(0, 0, 0, 0);
	uint64_t j = t;
	for (; j + 3 * SW_STREAM_T < n4; j += 4 * SW_STREAM_T) {
		float4 v[4];
#pragma unroll
		for (int u = 0; u < 4; u++)
			v[u] = a[j + u * SW_STREAM_T];
#pragma unroll
		for (int u = 0; u < 4; u++) {
			acc.x += v[u].x;
			acc.y += v[u].y;
			acc.z += v[u].z;
			acc.w += v[u].w;
		}
	}
	for (; j < n4; j += SW_STREAM_T) {
		float4 v = a[j];
		acc.x += v.x;
		acc.y += v.y;
		acc.z += v.z;
		acc.w += v.w;
	}
	out[t] = (acc.x + acc.y) + (acc.z + acc.w);
}

cudaError_t sw_stream_read(const float *a, float *out, uint64_t n4, cudaStream_t s)
{
	sw_stream_read_kernel<<<SW_STREAM_BLOCKS, SW_STREAM_THREADS, 0, s>>>((const float4 *)a, out,
									     n4);
	return cudaGetLastError();
}

uint64_t sw_stream_requests(uint64_t n4, uint64_t r, struct sw_request *req)
{
	uint64_t warps = SW_STREAM_T / 32;
	uint64_t steps = (n4 + SW_STREAM_T - 1) / SW_STREAM_T;
	if (req) {
		uint64_t k = r / warps, w = r % warps;
		sw_request_begin(req, SW_SPACE_GLOBAL, 16, 0);
		for (int l = 0; l < 32; l++) {
			uint64_t j = w * 32 + l + k * SW_STREAM_T;
			sw_request_lane(req, l, j * 16, j < n4);
		}
	}
	return warps * steps;
}

const char *sw_stream_shape(struct sw_launch_shape *s)
{
	return sw_shape_set(s, SW_STREAM_BLOCKS, SW_STREAM_THREADS, 0, 4);
}

int sw_stream_refuse(int64_t n, char *why, size_t len)
{
	if (n % 4 == 0)
		return 0;
	snprintf(why, len, "stream_read reads float4: n = %lld is not a multiple of 4",
		 (long long)n);
	return 1;
}

double sw_stream_sum(uint64_t seed, uint64_t n4, uint64_t t, uint64_t *terms)
{
	double sum = 0;
	*terms = 0;
	for (uint64_t j = t; j < n4; j += SW_STREAM_T, *terms += 4)
		for (int c = 0; c < 4; c++)
			sum += sw_uniform(seed, 4 * j + c);
	return sum;
}
