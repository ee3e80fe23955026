/* SPDX-License-Identifier: MIT */
/* A plugin whose symbol hm_plugin is a function, not the table HM_PLUGIN declares:
 * hypemu must say so instead of reading its code as a table (tests/check_sdk.sh). It
 * does not include hypemu.h, whose hm_plugin_t the name would clash with. */
__attribute__((visibility("default"))) int hm_plugin(void);

int hm_plugin(void)
{
    return 42;
}
