/*
 * GPU binding and description. NVML is loaded with dlopen at first use, so
 * the binary builds where the toolkit ships no nvml.h and runs where the
 * driver has no NVML: clocks are then recorded as unknown, never guessed.
 */
#define _POSIX_C_SOURCE 200809L
#include "backend/device.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

int sw_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError(); /* clear the sticky "no driver" error */
		return 0;
	}
	return n;
}

static void fill_host(int local_rank, struct sw_device_info *info)
{
	memset(info, 0, sizeof *info);
	info->device_index = -1;
	info->local_rank = local_rank;
	if (gethostname(info->host, sizeof info->host - 1) != 0)
		strcpy(info->host, "unknown");
	const char *vis = getenv("CUDA_VISIBLE_DEVICES");
	snprintf(info->visible_devices, sizeof info->visible_devices, "%s", vis ? vis : "");
	cudaDriverGetVersion(&info->driver_version);
	cudaRuntimeGetVersion(&info->runtime_version);
}

void sw_device_host_info(int local_rank, struct sw_device_info *info)
{
	fill_host(local_rank, info);
}

enum sw_status sw_device_bind(int local_rank, struct sw_device_info *info, struct sw_err *err)
{
	fill_host(local_rank, info);
	int count = sw_device_count();
	if (count == 0)
		return sw_fail(err, SW_ECUDA,
			       "no CUDA device is visible (CUDA_VISIBLE_DEVICES='%s')",
			       info->visible_devices);
	/* Slurm's --gpus-per-task leaves one device visible per task: index 0.
	 * Otherwise node-local ranks take the visible devices in turn. */
	int dev = local_rank % count;
	cudaError_t e = cudaSetDevice(dev);
	struct cudaDeviceProp prop;
	if (e == cudaSuccess)
		e = cudaGetDeviceProperties(&prop, dev);
	if (e != cudaSuccess)
		return sw_fail(err, SW_ECUDA, "cannot use CUDA device %d: %s", dev,
			       cudaGetErrorString(e));

	info->device_index = dev;
	snprintf(info->name, sizeof info->name, "%s", prop.name);
	info->cc = prop.major * 10 + prop.minor;
	info->sm_count = prop.multiProcessorCount;
	info->mem_bytes = (int64_t)prop.totalGlobalMem;
	cudaDeviceGetPCIBusId(info->pci_bus_id, sizeof info->pci_bus_id, dev);
	const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
	snprintf(info->uuid, sizeof info->uuid,
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		 u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		 u[14], u[15]);
	int v = 0;
	cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev);
	info->mem_clock_khz = v;
	cudaDeviceGetAttribute(&v, cudaDevAttrGlobalMemoryBusWidth, dev);
	info->mem_bus_width_bits = v;
	cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, dev);
	info->l2_bytes = v;
	/* Double data rate: two transfers per memory clock. */
	info->peak_gbps = 2.0 * info->mem_clock_khz * 1e3 * (info->mem_bus_width_bits / 8.0) / 1e9;
	return SW_OK;
}

/* The few NVML entry points used, declared here (nvml.h may be absent). */
typedef struct nvml_device *nvml_device_t;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };
struct nvml_api {
	int loaded, ok;
	int (*init)(void);
	int (*by_pci)(const char *bus_id, nvml_device_t *dev);
	int (*clock)(nvml_device_t dev, int type, unsigned *mhz);
	int (*reasons)(nvml_device_t dev, unsigned long long *mask);
};

/* Process-wide: the library handle is loaded once and never closed. */
static struct nvml_api nvml;

static void nvml_load(void)
{
	if (nvml.loaded)
		return;
	nvml.loaded = 1;
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return;
	*(void **)&nvml.init = dlsym(h, "nvmlInit_v2");
	*(void **)&nvml.by_pci = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&nvml.clock = dlsym(h, "nvmlDeviceGetClockInfo");
	*(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!nvml.reasons)
		*(void **)&nvml.reasons = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
	nvml.ok = nvml.init && nvml.by_pci && nvml.clock && nvml.init() == 0;
}

/* The NVML handle of a PCI bus id, looked up once: the lookup walks the
 * devices, and every measured point reads the clocks. */
static int nvml_handle(const char *pci_bus_id, nvml_device_t *dev)
{
	static char cached_id[sizeof((struct sw_device_info *)0)->pci_bus_id];
	static nvml_device_t cached;
	if (cached && strcmp(cached_id, pci_bus_id) == 0) {
		*dev = cached;
		return 0;
	}
	if (nvml.by_pci(pci_bus_id, dev) != 0)
		return -1;
	snprintf(cached_id, sizeof cached_id, "%s", pci_bus_id);
	cached = *dev;
	return 0;
}

void sw_device_clocks(const struct sw_device_info *info, struct sw_clocks *c)
{
	memset(c, 0, sizeof *c);
	if (info->device_index < 0)
		return;
	nvml_load();
	nvml_device_t dev;
	if (!nvml.ok || nvml_handle(info->pci_bus_id, &dev) != 0)
		return;
	unsigned sm = 0, mem = 0;
	unsigned long long mask = 0;
	if (nvml.clock(dev, NVML_CLOCK_SM, &sm) != 0 || nvml.clock(dev, NVML_CLOCK_MEM, &mem) != 0)
		return;
	if (nvml.reasons)
		nvml.reasons(dev, &mask);
	c->sm_mhz = sm;
	c->mem_mhz = mem;
	c->throttle_reasons = mask;
	c->valid = 1;
}
