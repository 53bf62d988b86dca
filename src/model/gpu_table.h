/*
 * Real GPUs as data, one a line: the figures the time model (time_model.h)
 * takes from a datasheet, each with the key of where it comes from. The
 * keys are the sources at the end of this file; docs/model.md, "Devices",
 * says how they were read. Nothing here is fitted to this project's own
 * results: where no source gives a figure it is derived by the rule its
 * key names (DERIVED_*), or the GPU is not in the table. Include with
 * SW_GPU (and SW_GPU_SOURCE) defined.
 *
 *   SW_GPU(name, aliases, cc, sms, boost_mhz, dram_gbps, l2_bytes, fp32_gflops, sources)
 *     name      what --model-devices and the job's model.devices take
 *     aliases   '|'-separated; the name the driver reports (nvidia-smi,
 *               cudaGetDeviceProperties, /devices) first
 *     sources   one key per figure: sms, clock, dram, l2, fp32, in that order
 *   SW_CC(cc, threads_sm, blocks_sm, shared_sm_bytes, source)
 *     what a multiprocessor of that compute capability holds at once: the
 *     CUDA Programming Guide's "Technical Specifications per Compute
 *     Capability"; a CC between two rows takes the lower one's
 *   SW_GPU_SOURCE(key, citation)
 */
#ifndef SW_GPU
#define SW_GPU(name, aliases, cc, sms, boost_mhz, dram_gbps, l2_bytes, fp32_gflops, sources)
#endif
#ifndef SW_CC
#define SW_CC(cc, threads_sm, blocks_sm, shared_sm_bytes, source)
#endif
#ifndef SW_GPU_SOURCE
#define SW_GPU_SOURCE(key, citation)
#endif

/* clang-format off */
SW_GPU("K40m", "Tesla K40m|K40", 35, 15, 875, 288.0, 1572864, 5046, "SYSRQ-K40 MICROWAY-K40 MICROWAY-K40 SYSRQ-K40 SYSRQ-K40")
SW_GPU("K80", "Tesla K80", 37, 13, 824, 240.5, 1572864, 4113, "DQ-K80 DQ-K80 DERIVED-DRAM(DQ-K80) DQ-K80 DERIVED-FP32(DQ-K80)")
SW_GPU("M40", "Tesla M40", 52, 24, 1112, 288.4, 3145728, 6832, "DQ-M40 DQ-M40 DERIVED-DRAM(DQ-M40) DQ-M40 DERIVED-FP32(DQ-M40)")
SW_GPU("P100-SXM2", "Tesla P100-SXM2-16GB|P100", 60, 56, 1480, 732.2, 4194304, 10610, "SYSRQ-P100 SYSRQ-P100 SYSRQ-P100 SYSRQ-P100 SYSRQ-P100")
SW_GPU("V100-SXM2", "Tesla V100-SXM2-16GB|V100", 70, 80, 1530, 898.0, 6291456, 15667, "DQ-V100 DQ-V100 DERIVED-DRAM(DQ-V100) DQ-V100 DERIVED-FP32(DQ-V100)")
SW_GPU("T4", "Tesla T4", 75, 40, 1590, 320.1, 4194304, 8141, "DQ-T4 DQ-T4 DERIVED-DRAM(DQ-T4) DQ-T4 DERIVED-FP32(DQ-T4)")
SW_GPU("A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB|A100", 80, 108, 1410, 2039.0, 41943040, 19492, "DQ-A100 DQ-A100 DQ-A100 DQ-A100 DERIVED-FP32(DQ-A100)")
SW_GPU("A10", "NVIDIA A10", 86, 72, 1695, 600.1, 6291456, 31242, "DQ-A10 DQ-A10 DERIVED-DRAM(DQ-A10) DQ-A10 DERIVED-FP32(DQ-A10)")
SW_GPU("L4", "NVIDIA L4", 89, 58, 2040, 300.0, 50331648, 30290, "DQ-L4 DQ-L4 DERIVED-DRAM(DQ-L4) DQ-L4 DERIVED-FP32(DQ-L4)")
SW_GPU("H100-SXM", "NVIDIA H100 80GB HBM3|H100 SXM5 80GB", 90, 132, 1980, 3350.0, 52428800, 67000, "DQ-H100 DQ-H100 HPCTECH-H100 DQ-H100 HPCTECH-H100")
SW_GPU("H100-PCIe", "NVIDIA H100 PCIe", 90, 114, 1755, 2000.0, 52428800, 51000, "DQ-H100PCIE DQ-H100PCIE HPCTECH-H100 DQ-H100PCIE HPCTECH-H100")
SW_GPU("H200", "NVIDIA H200|H200 SXM 141GB", 90, 132, 1980, 4800.0, 62914560, 66908, "DEV-H200 NVML-H200 H200-NEWS DEV-H200 DERIVED-FP32(DEV-H200,NVML-H200,DQ-H100)")
SW_GPU("B200", "NVIDIA B200", 100, 148, 1980, 8000.0, 132120576, 80000, "ALIAS-B200 B200-HMC B200-KLOCKWOOD BLACKWELL-TG B200-KLOCKWOOD")
SW_GPU("RTX-5090", "NVIDIA GeForce RTX 5090|GeForce RTX 5090", 120, 170, 2407, 1792.1, 100663296, 104753, "DQ-5090 DQ-5090 DERIVED-DRAM(DQ-5090) DQ-5090 DERIVED-FP32(DQ-5090)")

SW_CC(35, 2048, 16, 49152, "PG-7.0")
SW_CC(37, 2048, 16, 114688, "PG-7.0")
SW_CC(52, 2048, 32, 98304, "PG-7.0")
SW_CC(60, 2048, 32, 65536, "CCCL-ARCH")
SW_CC(70, 2048, 32, 98304, "CCCL-ARCH")
SW_CC(75, 1024, 16, 65536, "PG-13")
SW_CC(80, 2048, 32, 167936, "PG-13")
SW_CC(86, 1536, 16, 102400, "PG-13")
SW_CC(89, 1536, 24, 102400, "PG-13")
SW_CC(90, 2048, 32, 233472, "PG-13")
SW_CC(100, 2048, 32, 233472, "PG-13")
SW_CC(120, 1536, 24, 102400, "PG-13")
/* clang-format on */

SW_GPU_SOURCE("DQ-*", "deviceQuery (CUDA sample) output of a real run, quoted in a public "
		      "repository: the driver's device name, CC, multiprocessors, 'GPU Max Clock "
		      "rate', memory clock and bus width, L2 cache size")
SW_GPU_SOURCE("DEV-H200", "cudaGetDeviceProperties on the H200 lent to this project, as the "
			  "/devices row of docs/results/h200-full.h5 records it (sm_count 132, "
			  "l2_bytes 62914560): a reading of the device, not a fit")
SW_GPU_SOURCE("NVML-H200", "the SM clock NVML reported during 3050 of the 3265 points of "
			   "docs/results/h200-full.h5 (sm_clock_mhz 1980)")
SW_GPU_SOURCE("H200-NEWS", "NVIDIA's H200 announcement as reported: 141 GB of HBM3e at 4.8 TB/s "
			   "(geektopia.es 2023-11-13; aiwiki.ai/wiki/nvidia_h200)")
SW_GPU_SOURCE("HPCTECH-H100",
	      "HPC Tech (NVIDIA partner) H100 spec table, "
	      "archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html: SXM 3,350 GB/s, "
	      "67 TFLOPS FP32; PCIe 2000 GB/s, 51 TFLOPS")
SW_GPU_SOURCE("SYSRQ-K40", "sysrqmts.com K40m spec (TechPowerUp-derived): 15 SMX, 288.4 GB/s, "
			   "L2 1536 KB, FP32 5.046 TFLOPS")
SW_GPU_SOURCE("MICROWAY-K40", "Microway, 'NVIDIA Tesla K40 Atlas GPU Accelerator': CC 3.5, top "
			      "boost 875 MHz, up to 288 GB/s")
SW_GPU_SOURCE("SYSRQ-P100", "sysrqmts.com P100 SXM2 spec (TechPowerUp-derived): 56 SMs, boost 1480 "
			    "MHz, 732.2 GB/s, L2 4 MB, FP32 10.61 TFLOPS")
SW_GPU_SOURCE("ALIAS-B200", "nvidia-smi and an environment report of a real B200 run: 'NVIDIA "
			    "B200', CC 10.0, 'SM count: 148'")
SW_GPU_SOURCE("B200-HMC", "hmc-tech.com B200 spec (third party): boost 1.98 GHz")
SW_GPU_SOURCE("BLACKWELL-TG", "NVIDIA, Blackwell Tuning Guide (CUDA 13.0), 'Increased L2 "
			      "Capacity': the B200's L2 of 126 MB, taken as MiB as the H100's '50 "
			      "MB' is 52428800 bytes (docs.nvidia.com/cuda/blackwell-tuning-guide)")
SW_GPU_SOURCE("B200-KLOCKWOOD", "glennklockwood.com/garden/processors/B200: 8 TB/s (max), FP32 80 "
				"TFLOPS (HGX B200 at 1000 W)")
SW_GPU_SOURCE("DERIVED-DRAM",
	      "2 x memory clock x bus width / 8, from the deviceQuery named: "
	      "the convention NVIDIA-STREAM prints for the A100 (1593 MHz x 5120 bit "
	      "= 2039.0 GB/s)")
SW_GPU_SOURCE("DERIVED-FP32", "CUDA cores x 2 (one FMA) x boost clock, from the sources named")
SW_GPU_SOURCE("PG-13", "CUDA C++ Programming Guide (CUDA 13), 'Compute Capabilities', tables "
		       "30-31: resident threads, blocks and shared memory per SM (for 12.x it "
		       "says 24 blocks where NVIDIA's cccl says 32; the table takes the guide)")
SW_GPU_SOURCE("PG-7.0", "CUDA C Programming Guide (CUDA 7.0), 'Technical Specifications per "
			"Compute Capability', as a public copy reproduces it")
SW_GPU_SOURCE("CCCL-ARCH", "NVIDIA's cccl, its per-architecture limits (sm_60, sm_70)")
SW_GPU_SOURCE("-", "no source read gives it: the time model leaves the term out")

#undef SW_GPU
#undef SW_CC
#undef SW_GPU_SOURCE
