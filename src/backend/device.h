/*
 * The GPU a rank measures on: chosen from the node-local rank among the
 * devices CUDA_VISIBLE_DEVICES (or Slurm's binding, which sets it) leaves
 * visible, and described for the /devices table. Clocks and throttle
 * reasons come from NVML, loaded at run time where the driver has it.
 */
#ifndef SW_DEVICE_H
#define SW_DEVICE_H

#include <stdint.h>

#include "core/device_info.h"
#include "core/status.h"

/* Number of usable CUDA devices; 0 without a driver or a device. */
int sw_device_count(void);

/* Binds the calling process to device local_rank % count and fills info
 * (host and local rank too; the backend's name is the run's to fill).
 * SW_ECUDA when no device can be used. */
enum sw_status sw_device_bind(int local_rank, struct sw_device_info *info, struct sw_err *err);

/* A row for a rank bound to no device (the model and replay backends):
 * host and local rank only; the backend names the device. */
void sw_device_host_info(int local_rank, struct sw_device_info *info);

struct sw_clocks {
	uint32_t sm_mhz, mem_mhz;
	uint64_t throttle_reasons;
	int valid; /* 0 when NVML is missing */
};

/* Current clocks of the bound device (NVML); valid = 0 where unavailable. */
void sw_device_clocks(const struct sw_device_info *info, struct sw_clocks *c);

#endif
