/* assembly/tree_mass.c: the tree formulation's reduced pencil, leg by leg, by composite bodies.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Germain et al. 2015, eq. 54: M = J^T M_tot J and K = J^T K_tot J on the reduced coordinates
 * [q^0; x_p], with the tree coordinates of a leg q_t = Q [q^0; x_p] (eq. 52). Each leg is first
 * assembled on its tree coordinates, where it is a tree of bodies moved by unit screws S_c (eqs.
 * 33-37): an element's floating frame (eqs. 24-27, the rigid part of its mass at its start node)
 * and a rigid body are moved by the coordinates upstream of their node, so the mass entry of two
 * coordinates c upstream of d is S_c^T I_d S_d, with I_d the inertia of everything downstream of
 * d: the composite-rigid-body algorithm (Walker and Orin 1982; Featherstone, Rigid Body Dynamics
 * Algorithms, 2008, sec. 6.2). To it each element adds the coupling of its frame with its own
 * elastic coordinates and their own mass; the stiffness there is block diagonal, one element's
 * elastic coordinates per block (eq. 23). Both are then reduced by Q once per leg. This replaces
 * a projection of every element through its dense rows of J Q, whose cost grew as elements
 * times the leg's reduced coordinates squared. */
#include "assembly/assembly_impl.h"
#include "assembly/tree_impl.h"
#include "core/core_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The transfer A = [I, N; 0, I], N = -[x]x, of a twist (v_O, w) at the origin to the point x
 * (v_x = v_O + w x x): C = A^T B A for a 6 x 6 row-major B (C = B allowed), by its blocks
 * [B11, B11 N + B12; N^T B11 + B21, ...]. */
static void to_origin(const double x[3], const double *B, double *C)
{
    const double N[3][3] = {{0.0, x[2], -x[1]}, {-x[2], 0.0, x[0]}, {x[1], -x[0], 0.0}};
    double T[36];
    memcpy(T, B, sizeof(T));
    for (int i = 0; i < 6; i++) /* right columns: B A */
        for (int j = 0; j < 3; j++)
            T[i * 6 + 3 + j] +=
                B[i * 6] * N[0][j] + B[i * 6 + 1] * N[1][j] + B[i * 6 + 2] * N[2][j];
    memcpy(C, T, sizeof(T));
    for (int i = 0; i < 3; i++) /* bottom rows: A^T (B A) */
        for (int j = 0; j < 6; j++)
            C[(3 + i) * 6 + j] += N[0][i] * T[j] + N[1][i] * T[6 + j] + N[2][i] * T[12 + j];
}

/* D = A^T F (A of to_origin) for a 6 x 6 F: its bottom rows gain N^T F's top rows. */
static void to_origin_left(const double x[3], const double *F, double *D)
{
    const double N[3][3] = {{0.0, x[2], -x[1]}, {-x[2], 0.0, x[0]}, {x[1], -x[0], 0.0}};
    memcpy(D, F, 36 * sizeof(double));
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 6; j++)
            D[(3 + i) * 6 + j] += N[0][i] * F[j] + N[1][i] * F[6 + j] + N[2][i] * F[12 + j];
}

/* An element's floating-frame mass Mf (12 x 12, local axes, frame at its start node s) as the
 * 6 x 6 inertia Ig of its frame part on the twist at the origin, global axes, and the coupling Cg
 * (6 x 6) of that twist with its elastic coordinates: R6 = diag(R, R) acts on translations and
 * rotations alike (rows of R the local axes), Ig = A^T R6^T Mff R6 A, Cg = A^T R6^T Mfe. */
static void element_inertia(double Mf[12][12], double R[3][3], const double xs[3], double *Ig,
                            double *Cg)
{
    double B[36], F[36];
    for (int bi = 0; bi < 6; bi += 3)
        for (int bj = 0; bj < 6; bj += 3) {
            double MR[3][3]; /* Mff's block (bi, bj) times R */
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 3; j++)
                    MR[k][j] = Mf[bi + k][bj] * R[0][j] + Mf[bi + k][bj + 1] * R[1][j] +
                               Mf[bi + k][bj + 2] * R[2][j];
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) {
                    B[(bi + i) * 6 + bj + j] =
                        R[0][i] * MR[0][j] + R[1][i] * MR[1][j] + R[2][i] * MR[2][j];
                    F[(bi + i) * 6 + bj + j] = R[0][i] * Mf[bi][6 + bj + j] +
                                               R[1][i] * Mf[bi + 1][6 + bj + j] +
                                               R[2][i] * Mf[bi + 2][6 + bj + j];
                }
        }
    to_origin(xs, B, Ig);
    to_origin_left(xs, F, Cg);
}

/* An element's floating-frame mass Mf (12 x 12) and its elastic stiffness Kf (6 x 6), local axes
 * (Germain et al. 2015, eqs. 23-27): pure functions of the element's type, section, material,
 * mass options and length. memo (NULL, or PKM_ELEM_MEMO doubles) holds them with those inputs
 * from an earlier pose and is used while the inputs are the same, to the last bit: a tolerance
 * would make a pose's values depend on the poses before it. Along a NaVARo map about half the
 * elements keep their length to the last bit (the others' come out of the pose's node positions
 * with other roundings); the kernels were 3 % of the map. */
#define PKM_ELEM_KEY  11
#define PKM_ELEM_MEMO (PKM_ELEM_KEY + 144 + 36)
static void element_matrices(const pkm_body *b, double len, double *memo, double Mf[12][12],
                             double Kf[6][6])
{
    const pkm_section *sc = &b->section;
    const pkm_material *mt = &b->material;
    const double key[PKM_ELEM_KEY] = {b->element, b->mass_flags, sc->A, sc->Iy,  sc->Iz, sc->I0,
                                      sc->Ip,     mt->E,         mt->G, mt->rho, len};
    int same = memo != NULL;
    for (int k = 0; k < PKM_ELEM_KEY && same; k++)
        same = key[k] == memo[k];
    if (same) {
        memcpy(Mf, memo + PKM_ELEM_KEY, 144 * sizeof(double));
        memcpy(Kf, memo + PKM_ELEM_KEY + 144, 36 * sizeof(double));
        return;
    }
    pkm_beam_types[b->element].floating_mass(sc, mt, len, b->mass_flags, &Mf[0][0]);
    pkm_beam_types[b->element].floating_stiffness(sc, mt, len, &Kf[0][0]);
    if (memo == NULL) return;
    memcpy(memo, key, sizeof(key));
    memcpy(memo + PKM_ELEM_KEY, Mf, 144 * sizeof(double));
    memcpy(memo + PKM_ELEM_KEY + 144, Kf, 36 * sizeof(double));
}

/* Mt(c, d) for the coordinates d located at node n (nd of them from d0) and every coordinate c
 * at n or upstream of it: S_c^T I S_d, I the composite inertia of everything downstream of n
 * (S: the screws, 6 per coordinate), both triangles. When n is an element's far node, its
 * frame's coupling C with those (its elastic) coordinates adds S_c^T C to the coordinates c
 * upstream of its frame, i.e. strictly upstream of n (Germain et al. 2015, eqs. 24-27). */
static void add_composite(const tree *t, int n, const double *I, const double *C, const double *S,
                          int nc, double *Mt)
{
    const int d0 = t->node_c0[n], nd = t->node_nc[n];
    for (int d = d0; d < d0 + nd; d++) {
        const double *sd = S + 6 * (size_t)d;
        double F[6], G[6];
        for (int i = 0; i < 6; i++) {
            double v = 0.0;
            for (int k = 0; k < 6; k++)
                v += I[i * 6 + k] * sd[k];
            F[i] = v;
            G[i] = C != NULL ? v + C[i * 6 + (d - d0)] : v;
        }
        for (int c = d0; c <= d; c++) {
            const double *sc = S + 6 * (size_t)c;
            const double v = sc[0] * F[0] + sc[1] * F[1] + sc[2] * F[2] + sc[3] * F[3] +
                             sc[4] * F[4] + sc[5] * F[5];
            Mt[(size_t)c * nc + d] += v;
            if (c != d) Mt[(size_t)d * nc + c] += v;
        }
        for (int a = t->node_parent[n]; a >= 0; a = t->node_parent[a])
            for (int c = t->node_c0[a]; c < t->node_c0[a] + t->node_nc[a]; c++) {
                const double *sc = S + 6 * (size_t)c;
                const double v = sc[0] * G[0] + sc[1] * G[1] + sc[2] * G[2] + sc[3] * G[3] +
                                 sc[4] * G[4] + sc[5] * G[5];
                Mt[(size_t)c * nc + d] += v;
                Mt[(size_t)d * nc + c] += v;
            }
    }
}

/* The leg's mass Mt (nc x nc, both triangles) on its tree coordinates and its stiffness, block
 * diagonal there: row c of an element's 6 x 6 block in Kt[6 c .. 6 c + 5]. In, Cn:
 * 36 per leg node (composite inertias; frame couplings at elements' far nodes), S: 6 per
 * coordinate; memo: NULL or element_matrices' record of every element. */
static void leg_matrices(const tree *t, const leg *L, int l, double *memo, double *In, double *Cn,
                         double *S, double *Mt, double *Kt)
{
    const pkm_model *m = t->m;
    const int nc = L->ncoord;
    memset(In, 0, sizeof(double) * 36 * (size_t)L->nnodes);
    memset(Mt, 0, sizeof(double) * (size_t)nc * (size_t)nc);
    /* The bodies' inertias at their nodes: elements' frames, rigid bodies. */
    for (int e = 0; e < pkm_model_element_count(m); e++) {
        const pkm_elem *el = pkm_model_elem(m, e);
        if (pkm_topology_body_leg(t->topo, el->body) != l) continue;
        const pkm_body *b = pkm_model_body(m, el->body);
        const int s = t->elem_start[e], tn = pkm_tree_far_node(t, e);
        double R[3][3], Mf[12][12], Kf[6][6], Ig[36];
        memcpy(R, t->elem_frame + 10 * (size_t)e, sizeof(R)); /* propagate's */
        element_matrices(b, t->elem_frame[10 * (size_t)e + 9],
                         memo != NULL ? memo + PKM_ELEM_MEMO * (size_t)e : NULL, Mf, Kf);
        element_inertia(Mf, R, pkm_model_node(m, s)->x, Ig, Cn + 36 * (size_t)t->node_local[tn]);
        double *I = In + 36 * (size_t)t->node_local[s];
        for (int q = 0; q < 36; q++)
            I[q] += Ig[q];
        /* the element's own elastic blocks (local axes, as its coordinates; eq. 23) */
        const int c0 = t->elem_coord[e];
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                Mt[(size_t)(c0 + i) * nc + c0 + j] += Mf[6 + i][6 + j];
                Kt[6 * (size_t)(c0 + i) + j] = Kf[i][j];
            }
    }
    for (int bi = 0; bi < pkm_model_body_count(m); bi++) {
        const pkm_body *b = pkm_model_body(m, bi);
        if (b->kind != PKM_BODY_RIGID || bi == pkm_model_platform(m) ||
            pkm_topology_body_leg(t->topo, bi) != l)
            continue;
        double Mr[6][6], Ig[36];
        pkm_asm_rigid_inertia(m, b, Mr);
        to_origin(pkm_model_node(m, b->first_node)->x, &Mr[0][0], Ig);
        double *I = In + 36 * (size_t)t->node_local[b->first_node];
        for (int q = 0; q < 36; q++)
            I[q] += Ig[q];
    }
    /* The screws of the coordinates where they are located, one after the other. */
    for (int q = 0; q < t->nseq; q++) {
        const int n = t->node_seq[q];
        if (t->node_nc[n] == 0 || pkm_topology_body_leg(t->topo, pkm_model_node(m, n)->body) != l)
            continue;
        const double *Jn = pkm_tree_node_J(t, n);
        for (int c = t->node_c0[n]; c < t->node_c0[n] + t->node_nc[n]; c++)
            for (int k = 0; k < 6; k++)
                S[6 * (size_t)c + k] = Jn[k * nc + c];
    }
    /* Composites, leaves first (node_seq has parents first), each node's coordinates against
     * everything downstream of them as soon as that is complete. */
    for (int q = t->nseq - 1; q >= 0; q--) {
        const int n = t->node_seq[q], p = t->node_parent[n];
        const pkm_node *nd = pkm_model_node(m, n);
        if (pkm_topology_body_leg(t->topo, nd->body) != l) continue;
        const double *I = In + 36 * (size_t)t->node_local[n];
        /* a beam's node other than its entry is an element's far node */
        const int far = pkm_model_body(m, nd->body)->kind == PKM_BODY_BEAM &&
                        n != pkm_topology_entry_node(t->topo, nd->body);
        if (t->node_nc[n] > 0)
            add_composite(t, n, I, far ? Cn + 36 * (size_t)t->node_local[n] : NULL, S, nc, Mt);
        if (p >= 0) {
            double *P = In + 36 * (size_t)t->node_local[p];
            for (int k = 0; k < 36; k++)
                P[k] += I[k];
        }
    }
}

/* The eliminated rows G of a leg's Q (eq. 49) by their nonzeros: row q (coordinate f[q]) holds
 * col[ptr[q] .. ptr[q + 1] - 1] and val alike. A third of G is nonzero on NaVARo (a cut's
 * closure involves the coordinates of its loop only). */
typedef struct sparse_g {
    int nf;
    int *f, *ptr, *col;
    double *val;
    int *ind;  /* the independent coordinates, by their reduced index */
    int *live; /* per coordinate: its row of At_:F G holds a nonzero (reduce's scratch) */
} sparse_g;

static void gather_g(const leg *L, int np, sparse_g *g)
{
    const int w = L->n0 + np;
    g->nf = 0;
    g->ptr[0] = 0;
    for (int c = 0; c < L->ncoord; c++) {
        if (L->indep[c] >= 0) continue;
        const double *q = L->Q + (size_t)c * w;
        int p = g->ptr[g->nf];
        for (int k = 0; k < w; k++)
            if (q[k] != 0.0) {
                g->col[p] = k;
                g->val[p++] = q[k];
            }
        g->f[g->nf++] = c;
        g->ptr[g->nf] = p;
    }
    for (int c = 0; c < L->ncoord; c++)
        if (L->indep[c] >= 0) g->ind[L->indep[c]] = c;
}

/* y += v G_q (row q of G, by its nonzeros). */
static inline void add_g_row(const sparse_g *g, int q, double v, double *restrict y)
{
    for (int p = g->ptr[q]; p < g->ptr[q + 1]; p++)
        y[g->col[p]] += v * g->val[p];
}

/* B += G_q^T y (w x w, upper triangle): row j of B gains G_qj y over its columns k >= j. */
static inline void add_gt_y(const sparse_g *g, int q, const double *restrict y, int w,
                            double *restrict B)
{
    for (int p = g->ptr[q]; p < g->ptr[q + 1]; p++) {
        const int j = g->col[p];
        const double gj = g->val[p];
        double *restrict b = B + (size_t)j * w;
        for (int k = j; k < w; k++)
            b[k] += gj * y[k];
    }
}

/* B = Q^T At Q (w x w, upper triangle) for the leg's nc x nc symmetric At (both triangles). Q's
 * rows are unit rows on the independent coordinates I and the rows G of the eliminated ones F,
 * so B = At_II + At_IF G + G^T At_FI + G^T At_FF G: with Y = At_:F G (nc x w; its rows on F are
 * At_FF G) that is At_II, Y's rows on I added to B's rows and columns, and G^T Y_F. Zeros of At
 * and of G are skipped (the stiffness is block diagonal). */
PKM_TARGET_CLONES static void reduce(const leg *L, int np, const double *At, const sparse_g *g,
                                     double *Y, double *B)
{
    const int nc = L->ncoord, n0 = L->n0, w = n0 + np;
    for (int ia = 0; ia < n0; ia++) {
        const double *row = At + (size_t)g->ind[ia] * nc;
        double *restrict b = B + (size_t)ia * w;
        for (int ib = ia; ib < n0; ib++)
            b[ib] = row[g->ind[ib]];
        for (int k = n0; k < w; k++)
            b[k] = 0.0;
    }
    for (int a = n0; a < w; a++)
        for (int k = a; k < w; k++)
            B[a * w + k] = 0.0;
    for (int a = 0; a < nc; a++) {
        double *restrict y = Y + (size_t)a * w;
        g->live[a] = 0;
        for (int q = 0; q < g->nf; q++) {
            const double v = At[(size_t)a * nc + g->f[q]];
            if (v == 0.0) continue;
            if (!g->live[a]) {
                for (int k = 0; k < w; k++)
                    y[k] = 0.0;
                g->live[a] = 1;
            }
            add_g_row(g, q, v, y);
        }
        const int ia = L->indep[a];
        if (ia < 0 || !g->live[a]) continue;
        /* At_IF G into row ia, G^T At_FI into column ia (upper parts) */
        for (int k = ia; k < w; k++)
            B[ia * w + k] += y[k];
        for (int k = 0; k <= ia; k++)
            B[k * w + ia] += y[k];
    }
    for (int q = 0; q < g->nf; q++)
        if (g->live[g->f[q]]) add_gt_y(g, q, Y + (size_t)g->f[q] * w, w, B);
}

/* The same for the leg's stiffness Kt (leg_matrices' blocks), block diagonal on the elements'
 * elastic coordinates (eq. 23): an element whose coordinates are independent places its block,
 * an eliminated one adds G_e^T K_e G_e; the terms in reduce's order (the same values). */
PKM_TARGET_CLONES static void reduce_stiffness(const tree *t, const leg *L, int l, const double *Kt,
                                               const sparse_g *g, double *Y, double *B)
{
    const pkm_model *m = t->m;
    const int w = L->n0 + t->np;
    for (int a = 0; a < w; a++)
        for (int k = a; k < w; k++)
            B[a * w + k] = 0.0;
    for (int e = 0; e < pkm_model_element_count(m); e++) {
        if (pkm_topology_body_leg(t->topo, pkm_model_elem(m, e)->body) != l) continue;
        const int c0 = t->elem_coord[e];
        if (L->indep[c0] < 0) continue;
        for (int i = 0; i < 6; i++)
            for (int j = i; j < 6; j++)
                B[L->indep[c0 + i] * w + L->indep[c0 + j]] = Kt[6 * (size_t)(c0 + i) + j];
    }
    for (int q0 = 0; q0 < g->nf; q0 += 6) { /* an eliminated element: 6 rows of G */
        for (int i = 0; i < 6; i++) {
            const int f = g->f[q0 + i];
            double *restrict y = Y + (size_t)f * w;
            for (int k = 0; k < w; k++)
                y[k] = 0.0;
            for (int q = q0; q < q0 + 6; q++) {
                const double v = Kt[6 * (size_t)f + (q - q0)];
                if (v != 0.0) add_g_row(g, q, v, y);
            }
        }
        for (int q = q0; q < q0 + 6; q++)
            add_gt_y(g, q, Y + (size_t)g->f[q] * w, w, B);
    }
}

/* B (w x w, symmetric positive semidefinite, upper triangle) without the rounding residues of its
 * exact zeros: entries within PKM_TREE_RESIDUE of the bound sqrt(B_aa B_bb) that every entry of
 * such a matrix obeys are set to zero. Zeros such as the coupling of in-plane and out-of-plane
 * motions of a planar leg come out of the sums above as 0.0 at one pose and 1e-16 .. 1e-14 of the
 * bound at the next (NaVARo: 621 changes of pattern over a 30 x 30 map, each a new symbolic
 * analysis); the smallest true entries are 1e-4 of it. Dropping an entry of 1e-12 of the bound
 * moves the frequencies by about that, relative: below any solver's tolerance. */
#define PKM_TREE_RESIDUE 1e-12
static void clean(int w, double *B, double *d)
{
    for (int a = 0; a < w; a++)
        d[a] = sqrt(fabs(B[a * w + a]));
    for (int a = 0; a < w; a++) {
        const double da = PKM_TREE_RESIDUE * d[a];
        for (int b = a + 1; b < w; b++)
            B[a * w + b] = fabs(B[a * w + b]) <= da * d[b] ? 0.0 : B[a * w + b];
    }
}

pkm_status pkm_tree_assemble_legs(const tree *t, pkm_trip *trip, int64_t nred, pkm_ctx *ctx)
{
    const pkm_model *m = t->m;
    int maxc, maxw, maxn = 1;
    pkm_tree_leg_widths(t, &maxc, &maxw);
    for (int l = 0; l < t->nlegs; l++)
        maxn = t->legs[l].nnodes > maxn ? t->legs[l].nnodes : maxn;
    const size_t cc = (size_t)maxc * (size_t)maxc, cw = (size_t)maxc * (size_t)maxw,
                 ww = (size_t)maxw * (size_t)maxw;
    /* doubles: Mt, Kt, Y, BK, BM, In, Cn, S, G's values; then the integers (G's structure,
     * the reduced indices) in the same scratch, in units of a double */
    const size_t nd = cc + 2 * cw + 2 * ww + 72 * (size_t)maxn + 12 * (size_t)maxc;
    const size_t ni = (4 * (size_t)maxc + 2 + cw) / 2, nidx = (size_t)(maxw > 6 ? maxw : 6);
    double *buf = pkm_trip_scratch(trip, (int64_t)(nd + ni + nidx));
    if (buf == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the legs' tree matrices");
    double *Mt = buf, *Kt = Mt + cc, *Z = Kt + 6 * (size_t)maxc, *BK = Z + cw, *BM = BK + ww,
           *In = BM + ww, *Cn = In + 36 * (size_t)maxn, *S = Cn + 36 * (size_t)maxn,
           *gval = S + 6 * (size_t)maxc;
    int *ibuf = (int *)(buf + nd);
    int64_t *idx = (int64_t *)(buf + nd + ni);
    sparse_g g = {0,
                  ibuf,
                  ibuf + maxc,
                  ibuf + 2 * maxc + 1,
                  gval,
                  ibuf + 2 * maxc + 1 + cw,
                  ibuf + 3 * maxc + 1 + cw};
    double *memo;
    pkm_status rc =
        pkm_trip_memo(trip, PKM_ELEM_MEMO * (int64_t)pkm_model_element_count(m), &memo, ctx);
    for (int l = 0; l < t->nlegs && rc == PKM_OK; l++) {
        const leg *L = &t->legs[l];
        const int w = L->n0 + t->np;
        leg_matrices(t, L, l, memo, In, Cn, S, Mt, Kt);
        gather_g(L, t->np, &g);
        reduce(L, t->np, Mt, &g, Z, BM);
        reduce_stiffness(t, L, l, Kt, &g, Z, BK);
        for (int k = 0; k < L->n0; k++)
            idx[k] = L->first + k;
        for (int k = 0; k < t->np; k++)
            idx[L->n0 + k] = nred - t->np + k;
        clean(w, BK, Z);
        clean(w, BM, Z);
        rc = pkm_trip_add_block(trip, w, idx, BK, BM, ctx);
    }
    /* The platform on x_p, the twist of its first node (eqs. 43-44). */
    const int pb = pkm_model_platform(m);
    if (rc == PKM_OK && pb >= 0) {
        double Mr[6][6];
        pkm_asm_rigid_inertia(m, pkm_model_body(m, pb), Mr);
        for (int k = 0; k < 6; k++)
            idx[k] = nred - 6 + k;
        rc = pkm_trip_add_block(trip, 6, idx, NULL, &Mr[0][0], ctx);
    }
    return rc;
}
