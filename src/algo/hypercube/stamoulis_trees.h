/* SPDX-License-Identifier: MIT */
/*
 * stamoulis_trees.h — the completely unbalanced spanning trees of Q_d and the d
 * edge-disjoint ones T^(1)..T^(d) (Stamoulis-Tsitsiklis, sections 2.1.2 and 2.1.3,
 * after Johnsson-Ho's dESBT). Pure functions of node numbers; no engine state.
 *
 * Dimensions are numbered from 0 here (port i joins x and x XOR 2^i); the paper
 * numbers them from 1, so the paper's dimension m is our m - 1 and e_j = 2^(j-1).
 *
 * A completely unbalanced tree rooted at z with the cyclic index-order starting at
 * dimension f crosses, on the path from z to y, the dimensions of z XOR y in the order
 * f, f+1, ..., d-1, 0, ..., f-1. The position of dimension i in that order is
 * (i - f) mod d. y's father flips the set bit of z XOR y of highest position; y's
 * children flip every dimension of higher position than that (the root: all of them).
 * With f = 0 this is the paper's "increasing index-order" tree (Figure 1).
 *
 * T^(j), j = 1..d, is rooted at e_j with the order starting at the paper's dimension
 * (j mod d) + 1, that is our dimension j mod d. The d trees are edge-disjoint (checked
 * for every d up to 12 by tests/check_simultaneous.c).
 */
#ifndef HMA_ALGO_STAMOULIS_TREES_H
#define HMA_ALGO_STAMOULIS_TREES_H

#include <stdint.h>

/* Ports of u's children in the completely unbalanced tree (root, first), as a mask. */
uint64_t hma_cut_children(int d, uint32_t root, int first, uint32_t u);

/* Port leading to u's father in that tree, -1 for the root. */
int hma_cut_parent_port(int d, uint32_t root, int first, uint32_t u);

/* Is j the number of one of the d trees, 1..d? A packet's tree number comes from
 * another node: check it before any of the functions below shifts by j - 1. */
static inline int hma_st_tree_valid(int64_t j, int d)
{
    return j >= 1 && j <= d;
}

/* e_j = 2^(j-1), the root of T^(j), j = 1..d (hma_st_tree_valid). */
static inline uint32_t hma_st_root(int j)
{
    return UINT32_C(1) << (j - 1);
}

/* The first dimension (0-based) of T^(j)'s order: j mod d. */
static inline int hma_st_first(int j, int d)
{
    return j % d;
}

/* Section 3.2: the tree that carries the packet of rank r (1..K): (r - 1) mod d + 1. */
static inline int hma_st_tree_of_rank(int64_t r, int d)
{
    return (int)((r - 1) % d) + 1;
}

/* N_j: how many of the ranks 1..K fall on tree j (floor(K/d) or ceil(K/d)). */
static inline int64_t hma_st_tree_load(int64_t K, int j, int d)
{
    return K / d + (j <= K % d ? 1 : 0);
}

#endif
