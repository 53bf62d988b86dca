/*
 * splitmix64 (sw_mix64), the one hash behind the inputs (sw_uniform), the
 * sampled checks' picks and the harness's seeds, now part of the public
 * family API; this header is kept for the harness files that include it.
 */
#ifndef SW_MIX_H
#define SW_MIX_H

#include <sweep/family.h>

#endif
