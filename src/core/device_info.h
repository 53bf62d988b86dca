/*
 * The description of the GPU (or model) a rank runs on, as the /devices
 * table records it: plain data, filled by backend/device.c and written by
 * h5/. Ground floor, so the result file need not know the backends.
 */
#ifndef SW_DEVICE_INFO_H
#define SW_DEVICE_INFO_H

#include <stdint.h>

struct sw_device_info {
	int32_t rank;
	int32_t session;
	char host[64];
	int32_t local_rank;
	int32_t device_index; /* CUDA ordinal among the visible devices; -1 for model */
	char backend[8];
	char pci_bus_id[32];
	char uuid[48]; /* "GPU-xxxxxxxx-..." */
	char name[64];
	/* the device class (name, CC, memory) as this run labels it: the name,
	 * unless two classes of the run share it (run/place.h, schema 5) */
	char device_class[96];
	/* an emulated device's (the replay backend): the name of the GPU its
	 * recording measured on, as that file's /devices has it; "" for a GPU
	 * of its own, or a recording that names none (schema 8) */
	char emulates[64];
	int32_t cc; /* 10 * major + minor */
	int32_t sm_count;
	int32_t mem_clock_khz;
	int32_t mem_bus_width_bits;
	double peak_gbps; /* 2 x clock x bus width (DDR) */
	int64_t l2_bytes;
	int64_t mem_bytes;
	int32_t driver_version; /* cudaDriverGetVersion, e.g. 13000 */
	int32_t runtime_version;
	char visible_devices[64]; /* CUDA_VISIBLE_DEVICES as this rank saw it */
};

#endif
