/* assembly/tree.c: virtual-tree assembly with symmetric leg-variable loop closure.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Germain et al. 2015, secs. 3-4. Every loop is opened: the platform is cut free (its twist x_p
 * becomes 6 coordinates) and the joints that close loops inside a leg are cut; every joint is
 * virtually actuated (its free motions are coordinates). Each beam element carries a floating
 * frame at its node nearer the ground and 6 elastic coordinates of its other node (eqs. 16-27).
 * The coordinates of a leg, q_t,i, move downstream nodes rigidly: each is a unit screw, and the
 * twist of a node is the sum of the screws upstream of it (eqs. 33-37: the derivative of the
 * chain of homogeneous transforms is a screw). Each cut joint gives 6 closure equations (eqs.
 * 42-46); they are solved for the 6 elastic coordinates of one element of the loop, whose block
 * J_v^f has the closed-form inverse of eq. 51, so the eliminated coordinates of a leg depend only
 * on that leg's independent coordinates and on x_p (eqs. 47-52). The reduced pencil is
 * M = J^T M_tot J, K = J^T K_tot J (eq. 54), assembled leg by leg (tree_mass.c). */
#include "assembly/assembly_impl.h"
#include "assembly/tree_impl.h"
#include "core/core_impl.h"
#include "pkm/assembly.h"
#include "pkm/spatial.h"
#include "pkm/topology.h"

#include <stdlib.h>
#include <string.h>

static void tree_free(tree *t)
{
    if (t->legs != NULL)
        for (int l = 0; l < t->nlegs; l++) {
            free(t->legs[l].J);
            free(t->legs[l].indep);
            free(t->legs[l].Q);
        }
    free(t->legs);
    pkm_topology_destroy(&t->topo);
    free(t->joint_coord); /* the block of all the integer arrays */
    free(t->elem_frame);
}

double *pkm_tree_node_J(const tree *t, int node)
{
    const leg *L = &t->legs[pkm_topology_body_leg(t->topo, pkm_model_node(t->m, node)->body)];
    return L->J + (size_t)t->node_local[node] * 6 * (size_t)L->ncoord;
}

/* Twists at point y of node n's coordinates: T (6 x ncoord, row-major) = [I, -[y]x; 0, I] J_n,
 * row by row (pkm_twist_transfer of every column, the same operations: v + w x y). */
void pkm_tree_node_twists(const tree *t, int n, const double y[3], double *T)
{
    const size_t nc =
        (size_t)t->legs[pkm_topology_body_leg(t->topo, pkm_model_node(t->m, n)->body)].ncoord;
    const double *restrict J = pkm_tree_node_J(t, n);
    const double *restrict w0 = J + 3 * nc, *restrict w1 = J + 4 * nc, *restrict w2 = J + 5 * nc;
    double *restrict out = T;
    for (size_t c = 0; c < nc; c++) {
        out[c] = J[c] + (w1[c] * y[2] - w2[c] * y[1]);
        out[nc + c] = J[nc + c] + (w2[c] * y[0] - w0[c] * y[2]);
        out[2 * nc + c] = J[2 * nc + c] + (w0[c] * y[1] - w1[c] * y[0]);
    }
    memcpy(out + 3 * nc, w0, 3 * nc * sizeof(double));
}

/* Coordinates of each leg: free motions of its joints, then 6 per element (in tree order). */
static void number_coordinates(tree *t)
{
    const pkm_model *m = t->m;
    double S[PKM_JOINT_MAX_FREE][6];
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        leg *L = &t->legs[pkm_topology_joint_leg(t->topo, j)];
        t->joint_coord[j] = L->ncoord;
        L->ncoord += pkm_joint_free_twists(pkm_model_joint(m, j), S);
    }
    for (int i = 0; i < t->norder; i++) {
        const pkm_body *b = pkm_model_body(m, t->order[i]);
        leg *L = &t->legs[pkm_topology_body_leg(t->topo, t->order[i])];
        for (int e = b->first_elem; e < b->first_elem + b->nelem; e++) {
            t->elem_coord[e] = L->ncoord;
            L->ncoord += 6;
        }
    }
    for (int n = 0; n < pkm_model_node_count(m); n++) {
        int b = pkm_model_node(m, n)->body;
        if (b == pkm_model_platform(m)) continue;
        t->node_local[n] = t->legs[pkm_topology_body_leg(t->topo, b)].nnodes++;
    }
}

/* Add the unit screws of element e's elastic coordinates (frame R, other node x) to J. */
static void add_elastic_screws(double *J, int ncoord, int c0, double R[3][3], const double x[3])
{
    for (int k = 0; k < 3; k++) {
        double s[6] = {0}, w[3] = {R[k][0], R[k][1], R[k][2]};
        /* translation along local axis k of the element's far node */
        for (int r = 0; r < 3; r++)
            J[r * ncoord + c0 + k] += w[r];
        /* rotation about local axis k through the far node: v_O = x cross w */
        pkm_vec3_cross(x, w, s);
        for (int r = 0; r < 3; r++) {
            J[r * ncoord + c0 + 3 + k] += s[r];
            J[(3 + r) * ncoord + c0 + 3 + k] += w[r];
        }
    }
}

/* Screws of every node: down the tree in breadth-first order (eqs. 33-37). */
static pkm_status propagate(tree *t, pkm_ctx *ctx)
{
    const pkm_model *m = t->m;
    for (int l = 0; l < t->nlegs; l++) {
        leg *L = &t->legs[l];
        /* not cleared: the walk below reaches every node (the topology refuses a body not
         * reached from the ground) and copies its rows from its parent's or clears them */
        L->J = malloc((size_t)L->nnodes * 6 * (size_t)(L->ncoord > 0 ? L->ncoord : 1) *
                      sizeof(double));
        if (L->J == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate leg Jacobians");
    }
    for (int i = 0; i < t->norder; i++) {
        const int bi = t->order[i];
        const pkm_body *b = pkm_model_body(m, bi);
        const int parent = pkm_topology_parent_joint(t->topo, bi);
        const int entry = pkm_topology_entry_node(t->topo, bi);
        const pkm_joint *jt = pkm_model_joint(m, parent);
        const int nc = t->legs[pkm_topology_body_leg(t->topo, bi)].ncoord;
        const int child = (jt->node[1] == entry && jt->body[1] == bi) ? 1 : 0;
        const int pnode = jt->node[1 - child];
        double *Je = pkm_tree_node_J(t, entry);
        t->node_parent[entry] = pnode;
        t->node_seq[t->nseq++] = entry;
        if (pnode >= 0) {
            memcpy(Je, pkm_tree_node_J(t, pnode), sizeof(double) * 6 * (size_t)nc);
            t->last_elem[entry] = t->last_elem[pnode];
        } else {
            memset(Je, 0, sizeof(double) * 6 * (size_t)nc);
            t->last_elem[entry] = -1;
        }
        /* Joint motions of the child relative to the parent: u_b = u_a + S d. */
        double S[PKM_JOINT_MAX_FREE][6];
        int nf = pkm_joint_free_twists(jt, S);
        t->node_c0[entry] = t->joint_coord[parent];
        t->node_nc[entry] = nf;
        for (int f = 0; f < nf; f++) {
            /* the screw (at the origin) of the joint's twist at its point */
            const double y[3] = {-jt->point[0], -jt->point[1], -jt->point[2]};
            double s[6];
            pkm_twist_transfer(S[f], y, s);
            for (int r = 0; r < 6; r++)
                Je[r * nc + t->joint_coord[parent] + f] += (child ? 1.0 : -1.0) * s[r];
        }
        if (b->kind == PKM_BODY_RIGID) {
            for (int n = 0; n < pkm_model_node_count(m); n++)
                if (pkm_model_node(m, n)->body == bi && n != entry) {
                    t->node_parent[n] = entry;
                    t->node_seq[t->nseq++] = n;
                    memcpy(pkm_tree_node_J(t, n), Je, sizeof(double) * 6 * (size_t)nc);
                    t->last_elem[n] = t->last_elem[entry];
                }
            continue;
        }
        const int k0 = entry - b->first_node;
        for (int dir = -1; dir <= 1; dir += 2) {
            for (int k = k0 + dir; k >= 0 && k < b->nnodes; k += dir) {
                const int from = b->first_node + k - dir, to = b->first_node + k;
                const int e = b->first_elem + (dir > 0 ? k - 1 : k);
                double R[3][3], l;
                t->elem_start[e] = from;
                /* its local frame, oriented from its floating-frame node to its far node */
                pkm_status rc = pkm_fem_beam3d_frame(pkm_model_node(m, from)->x,
                                                     pkm_model_node(m, to)->x, b->zref, R, &l, ctx);
                if (rc != PKM_OK) return rc;
                memcpy(t->elem_frame + 10 * (size_t)e, R, sizeof(R));
                t->elem_frame[10 * (size_t)e + 9] = l;
                double *Jt = pkm_tree_node_J(t, to);
                memcpy(Jt, pkm_tree_node_J(t, from), sizeof(double) * 6 * (size_t)nc);
                add_elastic_screws(Jt, nc, t->elem_coord[e], R, pkm_model_node(m, to)->x);
                t->last_elem[to] = e;
                t->node_parent[to] = from;
                t->node_seq[t->nseq++] = to;
                t->node_c0[to] = t->elem_coord[e];
                t->node_nc[to] = 6;
            }
        }
    }
    return PKM_OK;
}

/* Closure equations of cut joint j, twist form at the joint point (eqs. 42-46):
 * C [q_t,i; x_p] = t_b - t_a - S d = 0, C is 6 x (ncoord + np) row-major; T is 6 x ncoord
 * scratch. */
static void closure_rows(const tree *t, int j, double *C, double *T)
{
    const pkm_model *m = t->m;
    const pkm_joint *jt = pkm_model_joint(m, j);
    const leg *L = &t->legs[pkm_topology_joint_leg(t->topo, j)];
    const int nc = L->ncoord, w = nc + t->np;
    memset(C, 0, sizeof(double) * 6 * (size_t)w);
    for (int side = 0; side < 2; side++) {
        const double sg = side ? 1.0 : -1.0;
        if (jt->body[side] < 0) continue;
        if (jt->body[side] == pkm_model_platform(m)) {
            /* Rigid-body relation of eqs. 43-44: t(y) = (v_P + w x (y - P), w). */
            const double *P =
                pkm_model_node(m, pkm_model_body(m, pkm_model_platform(m))->first_node)->x;
            double d[3] = {jt->point[0] - P[0], jt->point[1] - P[1], jt->point[2] - P[2]};
            for (int k = 0; k < 3; k++) {
                C[k * w + nc + k] += sg;
                C[(3 + k) * w + nc + 3 + k] += sg;
            }
            /* w x d = -[d]x w */
            C[0 * w + nc + 4] += sg * d[2];
            C[0 * w + nc + 5] -= sg * d[1];
            C[1 * w + nc + 3] -= sg * d[2];
            C[1 * w + nc + 5] += sg * d[0];
            C[2 * w + nc + 3] += sg * d[1];
            C[2 * w + nc + 4] -= sg * d[0];
            continue;
        }
        pkm_tree_node_twists(t, jt->node[side], jt->point, T);
        for (int r = 0; r < 6; r++)
            for (int c = 0; c < nc; c++)
                C[r * w + c] += sg * T[r * nc + c];
    }
    double S[PKM_JOINT_MAX_FREE][6];
    int nf = pkm_joint_free_twists(jt, S);
    for (int f = 0; f < nf; f++)
        for (int r = 0; r < 6; r++)
            C[r * w + t->joint_coord[j] + f] -= S[f][r];
}

/* Whether element e moves node n: its elastic coordinates, located at its far node, are upstream
 * of n, i.e. the far node is n or one of n's ancestors in the node tree (a platform node and a
 * node of another leg have none of this leg's). */
static int moves(const tree *t, int e, int n)
{
    const int tn = pkm_tree_far_node(t, e);
    for (int a = n; a >= 0; a = t->node_parent[a])
        if (a == tn) return 1;
    return 0;
}

/* For each cut, the element whose elastic coordinates it eliminates: the last element on the
 * path to one of its nodes that moves no node of another cut, so that J_v^f is block diagonal
 * with blocks of the form of eq. 50. */
static pkm_status choose_eliminated(tree *t, pkm_ctx *ctx)
{
    const pkm_model *m = t->m;
    for (int j = 0; j < pkm_model_joint_count(m); j++)
        t->elim_elem[j] = -1;
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        if (!pkm_topology_is_cut(t->topo, j)) continue;
        const pkm_joint *jt = pkm_model_joint(m, j);
        for (int side = 0; side < 2 && t->elim_elem[j] < 0; side++) {
            const int n = jt->node[side];
            if (n < 0 || jt->body[side] == pkm_model_platform(m)) continue;
            const int e = t->last_elem[n];
            if (e < 0) continue;
            int ok = 1;
            for (int j2 = 0; j2 < pkm_model_joint_count(m) && ok; j2++) {
                if (j2 == j || !pkm_topology_is_cut(t->topo, j2)) continue;
                if (t->elim_elem[j2] == e) ok = 0;
                for (int s2 = 0; s2 < 2 && ok; s2++)
                    if (moves(t, e, pkm_model_joint(m, j2)->node[s2])) ok = 0;
            }
            if (ok) t->elim_elem[j] = e;
        }
        if (t->elim_elem[j] < 0)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "joint '%s' closes a loop, but no beam element on its loop moves only "
                            "this joint's nodes, so its closure cannot be eliminated; split a link "
                            "of this loop into its own body or mark another joint of the loop as "
                            "the cut",
                            jt->name);
    }
    return PKM_OK;
}

/* The rows of eq. 52 for each leg: identity on independent coordinates, and
 * q_f = -(J_v^f)^-1 [J_v^0  -J_p] [q^0; x_p] (eq. 49) on the eliminated ones. */
static pkm_status build_closure(tree *t, pkm_ctx *ctx)
{
    const pkm_model *m = t->m;
    for (int l = 0; l < t->nlegs; l++) {
        leg *L = &t->legs[l];
        L->indep = malloc(sizeof(int) * (size_t)(L->ncoord > 0 ? L->ncoord : 1));
        if (L->indep == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate closure");
        for (int c = 0; c < L->ncoord; c++)
            L->indep[c] = 0;
    }
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        if (t->elim_elem[j] < 0) continue;
        leg *L = &t->legs[pkm_topology_joint_leg(t->topo, j)];
        for (int k = 0; k < 6; k++)
            L->indep[t->elem_coord[t->elim_elem[j]] + k] = -1;
    }
    int64_t first = 0;
    for (int l = 0; l < t->nlegs; l++) {
        leg *L = &t->legs[l];
        L->n0 = 0;
        for (int c = 0; c < L->ncoord; c++)
            if (L->indep[c] >= 0) L->indep[c] = L->n0++;
        L->first = first;
        first += L->n0;
        const int w = L->n0 + t->np;
        L->Q = malloc((size_t)(L->ncoord > 0 ? L->ncoord : 1) * (size_t)(w > 0 ? w : 1) *
                      sizeof(double));
        if (L->Q == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate closure");
        for (int c = 0; c < L->ncoord; c++) /* the eliminated rows, accumulated below */
            if (L->indep[c] < 0)
                memset(L->Q + (size_t)c * (size_t)w, 0, sizeof(double) * (size_t)w);
    }
    int maxc, maxw;
    pkm_tree_leg_widths(t, &maxc, &maxw);
    double *Cbuf = malloc(sizeof(double) * 6 * (2 * (size_t)maxc + (size_t)t->np));
    if (Cbuf == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate closure");
    for (int j = 0; j < pkm_model_joint_count(m); j++) {
        const int e = t->elim_elem[j];
        if (e < 0) continue;
        const pkm_joint *jt = pkm_model_joint(m, j);
        leg *L = &t->legs[pkm_topology_joint_leg(t->topo, j)];
        const int nc = L->ncoord, wc = nc + t->np, w = L->n0 + t->np;
        double *C = Cbuf;
        closure_rows(t, j, C, C + 6 * wc);
        /* (J_v^f)^-1 by eq. 51: J_v^f = sg [R^T, -[d]x R^T; 0, R^T], d = y - x_far, sg = +1
         * when the element is on side b of the joint, -1 on side a. */
        const int tn = pkm_tree_far_node(t, e);
        double R[3][3];
        memcpy(R, t->elem_frame + 10 * (size_t)e, sizeof(R));
        const double sg = (jt->node[1] >= 0 && jt->body[1] != pkm_model_platform(m) &&
                           t->last_elem[jt->node[1]] == e)
                              ? 1.0
                              : -1.0;
        double d[3] = {jt->point[0] - pkm_model_node(m, tn)->x[0],
                       jt->point[1] - pkm_model_node(m, tn)->x[1],
                       jt->point[2] - pkm_model_node(m, tn)->x[2]};
        double Rd[3][3]; /* R [d]x */
        for (int a = 0; a < 3; a++) {
            Rd[a][0] = R[a][1] * d[2] - R[a][2] * d[1];
            Rd[a][1] = R[a][2] * d[0] - R[a][0] * d[2];
            Rd[a][2] = R[a][0] * d[1] - R[a][1] * d[0];
        }
        double Finv[6][6] = {{0}};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                Finv[a][b] = sg * R[a][b];
                Finv[a][3 + b] = sg * Rd[a][b];
                Finv[3 + a][3 + b] = sg * R[a][b];
            }
        const int c0 = t->elem_coord[e];
        /* column by column: most of C's columns (coordinates off the loop) are zero */
        for (int c = 0; c < wc; c++) {
            if (c < nc && (c >= c0 && c < c0 + 6)) continue;
            const double col[6] = {C[c],          C[wc + c],     C[2 * wc + c],
                                   C[3 * wc + c], C[4 * wc + c], C[5 * wc + c]};
            if (col[0] == 0.0 && col[1] == 0.0 && col[2] == 0.0 && col[3] == 0.0 && col[4] == 0.0 &&
                col[5] == 0.0)
                continue;
            const int k = (c < nc) ? L->indep[c] : L->n0 + (c - nc);
            double v[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
            for (int a = 0; a < 3; a++)
                for (int r = 0; r < 6; r++)
                    v[a] -= Finv[a][r] * col[r];
            for (int a = 3; a < 6; a++) /* Finv's lower left block is zero */
                for (int r = 3; r < 6; r++)
                    v[a] -= Finv[a][r] * col[r];
            for (int a = 0; a < 6; a++)
                if (v[a] != 0.0) L->Q[(size_t)(c0 + a) * (size_t)w + k] += v[a];
        }
    }
    free(Cbuf);
    return PKM_OK;
}

/* E = A Q for a leg: A is nrow x ncoord (row-major), E nrow x (n0 + np). */
void pkm_tree_times_Q(const leg *L, int np, int nrow, const double *A, double *E)
{
    const int w = L->n0 + np;
    memset(E, 0, sizeof(double) * (size_t)nrow * (size_t)w);
    for (int r = 0; r < nrow; r++)
        for (int c = 0; c < L->ncoord; c++) {
            const double a = A[r * L->ncoord + c];
            if (a == 0.0) continue;
            if (L->indep[c] >= 0) { /* an independent coordinate: Q's row is a unit row */
                E[r * w + L->indep[c]] += a;
                continue;
            }
            const double *q = L->Q + (size_t)c * (size_t)w;
            for (int k = 0; k < w; k++)
                E[r * w + k] += a * q[k];
        }
}

/* The most coordinates of a leg (*maxc) and columns of its projections, n0 + np (*maxw). */
void pkm_tree_leg_widths(const tree *t, int *maxc, int *maxw)
{
    *maxc = *maxw = 1;
    for (int l = 0; l < t->nlegs; l++) {
        *maxc = (t->legs[l].ncoord > *maxc) ? t->legs[l].ncoord : *maxc;
        *maxw = (t->legs[l].n0 + t->np > *maxw) ? t->legs[l].n0 + t->np : *maxw;
    }
}

pkm_status pkm_assemble_tree(const pkm_model *m, pkm_trip *trip, pkm_assembly_info *info,
                             pkm_ctx *ctx)
{
    if (pkm_model_plane_count(m) > 0)
        return PKM_FAIL(ctx, PKM_ERR_MODEL,
                        "tree assembly: point-on-plane constraint '%s' needs the nodal formulation",
                        pkm_model_plane(m, 0)->name);
    for (int b = 0; b < pkm_model_body_count(m); b++)
        if (pkm_model_body(m, b)->kind == PKM_BODY_BEAM &&
            pkm_beam_types[pkm_model_body(m, b)->element].floating_mass == NULL)
            return PKM_FAIL(ctx, PKM_ERR_MODEL,
                            "tree assembly: beam '%s' uses %s elements; the virtual-tree "
                            "formulation takes elements with a floating-frame form only (cubic; "
                            "use the nodal formulation)",
                            pkm_model_body(m, b)->name,
                            pkm_beam_types[pkm_model_body(m, b)->element].name);
    tree t;
    memset(&t, 0, sizeof(t));
    pkm_dofmap *own = NULL, *P = NULL;
    t.m = m;
    t.np = (pkm_model_platform(m) >= 0) ? 6 : 0;
    pkm_status rc = PKM_OK;
    const size_t nj = (size_t)pkm_model_joint_count(m) + 1;
    const size_t ne = (size_t)pkm_model_element_count(m) + 1,
                 nn = (size_t)pkm_model_node_count(m) + 1;
    /* The integer arrays in one block (a map assembles a tree at every pose). */
    t.joint_coord = calloc(2 * nj + 2 * ne + 6 * nn, sizeof(int));
    t.elem_frame = malloc(10 * ne * sizeof(double));
    if (t.joint_coord == NULL || t.elem_frame == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate the virtual tree");
        goto done;
    }
    t.elim_elem = t.joint_coord + nj;
    t.elem_coord = t.elim_elem + nj;
    t.elem_start = t.elem_coord + ne;
    t.node_local = t.elem_start + ne;
    t.last_elem = t.node_local + nn;
    t.node_parent = t.last_elem + nn;
    t.node_c0 = t.node_parent + nn;
    t.node_nc = t.node_c0 + nn;
    t.node_seq = t.node_nc + nn;
    for (size_t n = 0; n < nn; n++)
        t.node_parent[n] = -1;
    if ((rc = pkm_topology_create(m, &t.topo, ctx)) != PKM_OK) goto done;
    t.nlegs = pkm_topology_leg_count(t.topo);
    t.norder = pkm_topology_order(t.topo, &t.order);
    t.legs = calloc((size_t)(t.nlegs > 0 ? t.nlegs : 1), sizeof(*t.legs));
    if (t.legs == NULL) {
        rc = PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate legs");
        goto done;
    }
    number_coordinates(&t);
    if ((rc = pkm_tree_check_dense_size(&t, trip, ctx)) != PKM_OK) goto done;
    if ((rc = propagate(&t, ctx)) != PKM_OK) goto done;
    if ((rc = choose_eliminated(&t, ctx)) != PKM_OK) goto done;
    if ((rc = build_closure(&t, ctx)) != PKM_OK) goto done;
    /* The triplets' memory is checked where triplets are made: a pose assembled through the
     * cached scatter map makes none (and a miss assembles again without it). */
    if (!trip->scatter && (rc = pkm_tree_check_triplet_size(&t, trip, ctx)) != PKM_OK) goto done;
    int64_t ntot = t.np, nred = t.np;
    for (int l = 0; l < t.nlegs; l++) {
        ntot += t.legs[l].ncoord;
        nred += t.legs[l].n0;
    }
    /* The dof map only where it is asked for or the joint terms go through it: the matrices do
     * not (tree_mass.c). */
    const int joint_terms = pkm_asm_has_joint_terms(m);
    if (trip->dofmap != NULL || joint_terms) {
        if ((rc = pkm_trip_dofmap(trip, &own, &P, ctx)) != PKM_OK) goto done;
        if ((rc = pkm_tree_fill_dofmap(&t, P, nred, ctx)) != PKM_OK) goto done;
    }
    if ((rc = pkm_trip_begin(trip, nred, ctx)) != PKM_OK) goto done;
    if ((rc = pkm_tree_assemble_legs(&t, trip, nred, ctx)) != PKM_OK) goto done;
    if (joint_terms && (rc = pkm_asm_add_joint_terms(m, P, trip, ctx)) != PKM_OK) goto done;
    if (info != NULL) {
        memset(info, 0, sizeof(*info));
        info->n_total = ntot;
        info->n_reduced = nred;
        info->n_legs = t.nlegs;
        info->n_cuts = pkm_topology_cut_count(t.topo);
    }
done:
    tree_free(&t);
    pkm_dofmap_destroy(&own);
    return rc;
}
