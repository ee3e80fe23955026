/* SPDX-License-Identifier: MIT */
/*
 * version.c — hm_version(): the library's version, HM_VERSION of the hypemu/version.h
 * configure wrote for this build (configure.ac, AC_INIT).
 */
#include "hm_internal.h"

const char *hm_version(void)
{
    return HM_VERSION;
}
