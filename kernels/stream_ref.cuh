/*
 * The streaming-read reference that strided_read, offset_read and rowsum
 * measure their variants against: float4 loads over a 4096 x 256 grid, four
 * in flight per thread, one float sum per thread written so the loads stay.
 * One kernel, one model, one CPU sum, shared by every family that uses it.
 */
#ifndef SW_STREAM_REF_CUH
#define SW_STREAM_REF_CUH

#include "kernel.h"

#define SW_STREAM_BLOCKS  4096
#define SW_STREAM_THREADS 256
#define SW_STREAM_T       ((uint64_t)SW_STREAM_BLOCKS * SW_STREAM_THREADS)

/* Reads a[0 .. 4 n4) as float4; out holds SW_STREAM_T sums. Enqueues only. */
cudaError_t sw_stream_read(const float *a, float *out, uint64_t n4, cudaStream_t s);

/* The model's requests: request r is step r / warps of warp r % warps. */
uint64_t sw_stream_requests(uint64_t n4, uint64_t r, struct sw_request *req);

/* Its launch, for the time model: four float4 loads in flight a thread. */
const char *sw_stream_shape(struct sw_launch_shape *s);

/* Nonzero when n floats are not whole float4s, with the reason in why. */
int sw_stream_refuse(int64_t n, char *why, size_t len);

/* Thread t's sum in double from the input's seed; *terms: floats added. */
double sw_stream_sum(uint64_t seed, uint64_t n4, uint64_t t, uint64_t *terms);

#endif
