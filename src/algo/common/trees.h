/* SPDX-License-Identifier: MIT */
/*
 * trees.h — hypercube helpers shared by the algorithms: spanning binomial trees and
 * their rotations, binary reflected Gray codes. Pure functions of the node numbers;
 * no engine state.
 *
 * Desprez-Fraigniaud-Tourancheau 1993, section 3 (after Johnsson-Ho 1989):
 * SBT(x) = x XOR SBT(0); in SBT(0) the father of u != 0 flips u's lowest 1 bit k,
 * and u's children flip each bit j < k (the root's children flip every bit).
 * R^r rotates node numbers left by r bits, so dimension j of SBT(0) becomes dimension
 * (j + r) mod d of R^r(SBT(x)).
 */
#ifndef HMA_ALGO_TREES_H
#define HMA_ALGO_TREES_H

#include <stdint.h>

/* Left rotation of the d-bit number x by r (R^r), and its inverse. */
uint32_t hma_rotl(uint32_t x, int r, int d);
uint32_t hma_rotr(uint32_t x, int r, int d);

/* Ports (dimensions) of u's children in root XOR R^rot(SBT(0)) on Q_d, as a mask. */
uint64_t hma_sbt_children(int d, uint32_t root, int rot, uint32_t u);

/* Port leading to u's father, -1 for the root. */
int hma_sbt_parent_port(int d, uint32_t root, int rot, uint32_t u);

/* The i-th element (from 0) of the binary reflected Gray code. */
static inline uint32_t hma_gray(uint32_t i)
{
    return i ^ (i >> 1);
}

/* The dimension in which the i-th and (i+1)-th Gray code words differ, cyclically
 * over 2^d words (the last and the first differ in dimension d - 1). */
int hma_gray_step_dim(uint32_t i, int d);

/* A balanced spanning tree of Q_d rooted at 0 (doc/collectives.md, scatter-bst): the
 * nodes taken level by level (popcount 1, 2, ..., d; by number within a level), each
 * attached to the neighbour one level up (one bit cleared) whose root subtree has the
 * fewest nodes so far (the lowest root subtree on ties). par[x] gets x's father (-1 for
 * the root), sub[x] the dimension j of the root subtree holding x (the one under the
 * root's child 2^j; -1 for the root), count[j] its number of nodes; par and sub hold
 * 2^d entries, count d. Depth of x = popcount(x). Returns the largest count, which is
 * ceil((2^d - 1)/d) for d = 1..16 (tests/check_collectives.c). */
int hma_balanced_tree(int d, int32_t *par, int32_t *sub, int32_t *count);

#endif
