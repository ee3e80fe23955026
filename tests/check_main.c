/* SPDX-License-Identifier: MIT */
/*
 * check_main.c — one runner gathering every suite (Check's own example layout).
 * CK_RUN_SUITE / CK_RUN_CASE select a part, CK_FORK=no helps debugging.
 */
#include <stdlib.h>

#include "helpers.h"

int main(void)
{
    SRunner *sr = srunner_create(hm_suite_trees());
    srunner_add_suite(sr, hm_suite_engine());
    srunner_add_suite(sr, hm_suite_hypercube());
    srunner_add_suite(sr, hm_suite_config());
    srunner_add_suite(sr, hm_suite_cli());
    srunner_add_suite(sr, hm_suite_outputs());
    srunner_add_suite(sr, hm_suite_bus());
    srunner_add_suite(sr, hm_suite_simultaneous());
    srunner_add_suite(sr, hm_suite_esbt());
    srunner_add_suite(sr, hm_suite_seidel());
    srunner_add_suite(sr, hm_suite_free());
    srunner_add_suite(sr, hm_suite_collectives());
    srunner_add_suite(sr, hm_suite_local());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
