#pragma once
/* glibc's malloc tuning (mallopt, malloc_trim), which the Glibc module does not import. */
#include <malloc.h>

