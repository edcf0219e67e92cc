/* linkorder object d: a few functions so that moving this object moves several. */
#include "linkorder.h"

__attribute__((noinline)) static unsigned mix_d(unsigned x) { return x * 2654435761u + 0xddd; }

__attribute__((noinline)) unsigned helper_d(unsigned x) { return mix_d(x) ^ (x >> 13); }

__attribute__((noinline)) unsigned step_d(unsigned x) { return mix_d(x) + (x ^ 0x9e3779b9u); }
