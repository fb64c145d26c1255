// glibc's malloc tuning calls (malloc_trim), which Swift's Glibc module leaves out.
#include <malloc.h>
