/* SPDX-License-Identifier: MIT */
/*
 * list.h — hypemu --list and --list --json (list.c).
 */
#ifndef HM_CLI_LIST_H
#define HM_CLI_LIST_H

#include <stdio.h>

/* The catalogue as text, or as one JSON document, onto f. */
void hm__list(FILE *f);
void hm__list_json(FILE *f);

#endif
