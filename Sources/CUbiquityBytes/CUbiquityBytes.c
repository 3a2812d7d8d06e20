// ubq_plain_run is static inline in the header, so that Swift inlines it into its callers; this
// file exists because a C target needs a source, and checks that the header compiles as C.
#include "CUbiquityBytes.h"
