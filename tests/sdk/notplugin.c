/* SPDX-License-Identifier: MIT */
/* A shared object that is not a plugin (no HM_PLUGIN): hypemu must refuse it
 * (tests/check_sdk.sh). */
int sdk_test_not_a_plugin(int x);
int sdk_test_not_a_plugin(int x)
{
    return x + 1;
}
