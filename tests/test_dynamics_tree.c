/* tests/test_dynamics_tree.c: the rigid-body dynamics against second routes: the explicit
 * canonical blocks of Guo et al. 2024 (eqs. 19-22, signs restored) on random spatial trees of
 * revolute and prismatic joints, with their own kinematics (eqs. 2-10); the rigid limit of the
 * finite-element mass (the kinetic energy of the consistent mass under rigid twists).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dyn_util.h"

#include "pkm/cases.h"
#include "pkm/fem.h"
#include "pkm/spatial.h"

#define NB 7

static unsigned long long rng_state = 88172645463325252ULL;

static double urand(void) /* uniform in [-1, 1) */
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) / 4503599627370496.0 - 1.0;
}

static void unit(double a[3])
{
    const double n = pkm_vec3_norm(a);
    for (int k = 0; k < 3; k++)
        a[k] /= n;
}

static void cross(const double a[3], const double b[3], double c[3])
{
    pkm_vec3_cross(a, b, c);
}

/* The tree's data in the paper's terms (natural frames parallel to the global one at q = 0). */
typedef struct tree {
    int parent[NB], prism[NB];
    double n[NB][3], O0[NB][3], c0[NB][3], m[NB], J0[NB][3][3];
} tree;

/* Per body at the state: R_k, O_k, c_k, n_k^i, d_k, e_k, omega_k, J_k (eqs. 2-9). */
typedef struct kin {
    double R[NB][3][3], O[NB][3], c[NB][3], n[NB][3], d[NB][3], e[NB][3], w[NB][3], J[NB][3][3];
} kin;

static void tree_kinematics(const tree *tr, const double *q, const double *qd, kin *k)
{
    static const double I[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int b = 0; b < NB; b++) {
        const int p = tr->parent[b];
        const double(*Rp)[3] = (p < 0) ? I : PKM_CONST33(k->R[p]);
        double r0[3], Q[3][3], wp[3] = {0, 0, 0}, Op[3] = {0, 0, 0};
        if (p >= 0) {
            memcpy(wp, k->w[p], sizeof(wp));
            memcpy(Op, k->O[p], sizeof(Op));
        }
        pkm_vec3_sub(tr->O0[b], p < 0 ? (const double[3]){0, 0, 0} : tr->O0[p], r0);
        if (tr->prism[b]) pkm_vec3_axpy(q[b], tr->n[b], r0);
        pkm_mat3_apply(Rp, r0, k->d[b]);
        pkm_mat3_apply(Rp, tr->n[b], k->n[b]);
        dyn_add(Op, k->d[b], k->O[b]);
        pkm_rot_rodrigues(tr->n[b], tr->prism[b] ? 0.0 : q[b], Q);
        pkm_mat3_mul(Rp, PKM_CONST33(Q), k->R[b]);
        double rI[3];
        pkm_vec3_sub(tr->c0[b], tr->O0[b], rI);
        pkm_mat3_apply(PKM_CONST33(k->R[b]), rI, k->e[b]);
        dyn_add(k->O[b], k->e[b], k->c[b]);
        memcpy(k->w[b], wp, sizeof(wp));
        if (!tr->prism[b]) pkm_vec3_axpy(qd[b], k->n[b], k->w[b]);
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                double v = 0.0;
                for (int a = 0; a < 3; a++)
                    for (int c = 0; c < 3; c++)
                        v += k->R[b][i][a] * tr->J0[b][a][c] * k->R[b][j][c];
                k->J[b][i][j] = v;
            }
    }
}

static int in_subtree(const tree *tr, int j, int u) /* j in uL */
{
    for (; j >= 0; j = tr->parent[j])
        if (j == u) return 1;
    return 0;
}

/* M_R[u][l] and M_P[u][l] (eqs. 19-20, signs restored): the set S is uL if l is on the chain to
 * u, lL if l is in uL, else the blocks are 0. */
static void blocks(const tree *tr, const kin *k, int u, int l, double MR[3][3], double MP[3][3])
{
    memset(MR, 0, 9 * sizeof(double));
    memset(MP, 0, 9 * sizeof(double));
    int S;
    if (in_subtree(tr, u, l))
        S = u;
    else if (in_subtree(tr, l, u))
        S = l;
    else
        return;
    for (int j = 0; j < NB; j++) {
        if (!in_subtree(tr, j, S)) continue;
        double ru[3], rl[3], Xu[3][3], Xl[3][3], XX[3][3];
        pkm_vec3_sub(k->c[j], k->O[u], ru);
        pkm_vec3_sub(k->c[j], k->O[l], rl);
        pkm_vec3_skew(ru, Xu);
        pkm_vec3_skew(rl, Xl);
        pkm_mat3_mul(PKM_CONST33(Xu), PKM_CONST33(Xl), XX);
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) {
                if (tr->prism[l]) {
                    MR[a][b] += tr->m[j] * Xu[a][b];
                    MP[a][b] += tr->m[j] * (a == b);
                } else {
                    MR[a][b] += k->J[j][a][b] - tr->m[j] * XX[a][b];
                    MP[a][b] -= tr->m[j] * Xl[a][b];
                }
            }
    }
}

/* The reaction of joint u by eqs. 19-22 and S15 of the rebuild: tau_u (about O_u) and f_u. */
static void canonical(const tree *tr, const kin *k, const double *qd, const double *qdd,
                      const double g[3], int u, double f[3], double tau[3])
{
    memset(f, 0, 3 * sizeof(double));
    memset(tau, 0, 3 * sizeof(double));
    for (int l = 0; l < NB; l++) {
        double MR[3][3], MP[3][3], a[3], beta[3] = {0, 0, 0}, t[3];
        blocks(tr, k, u, l, MR, MP);
        for (int i = 0; i < 3; i++)
            a[i] = k->n[l][i] * qdd[l];
        if (!tr->prism[l] && tr->parent[l] >= 0) {
            pkm_vec3_cross(k->w[tr->parent[l]], k->n[l], beta);
            for (int i = 0; i < 3; i++)
                beta[i] *= qd[l];
        }
        for (int i = 0; i < 3; i++)
            a[i] += beta[i] * !tr->prism[l];
        pkm_mat3_apply(PKM_CONST33(MR), a, t);
        pkm_vec3_axpy(1.0, t, tau);
        pkm_mat3_apply(PKM_CONST33(MP), a, t);
        pkm_vec3_axpy(1.0, t, f);
    }
    for (int b = 0; b < NB; b++) {
        if (!in_subtree(tr, b, u)) continue;
        /* gamma_b: centripetal and Coriolis terms along the chain to b (eq. 21). */
        double gam[3] = {0, 0, 0}, t[3], t2[3], r[3], Jw[3];
        for (int l = b; l >= 0; l = tr->parent[l]) {
            const double *wp = tr->parent[l] >= 0 ? k->w[tr->parent[l]] : (const double[3]){0};
            cross(wp, k->d[l], t);
            cross(wp, t, t2);
            pkm_vec3_axpy(1.0, t2, gam);
            if (tr->prism[l]) {
                cross(wp, k->n[l], t);
                pkm_vec3_axpy(2.0 * qd[l], t, gam);
            }
        }
        cross(k->w[b], k->e[b], t);
        cross(k->w[b], t, t2);
        pkm_vec3_axpy(1.0, t2, gam);
        pkm_vec3_axpy(-1.0, g, gam);
        pkm_vec3_axpy(tr->m[b], gam, f);
        pkm_vec3_sub(k->c[b], k->O[u], r);
        cross(r, gam, t);
        pkm_vec3_axpy(tr->m[b], t, tau);
        pkm_mat3_apply(PKM_CONST33(k->J[b]), k->w[b], Jw);
        cross(k->w[b], Jw, t);
        pkm_vec3_axpy(1.0, t, tau);
    }
}

static void random_tree(tree *tr, pkm_model **out)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_model_create(out, &ctx), PKM_OK);
    for (int b = 0; b < NB; b++) {
        tr->parent[b] = (b == 0) ? -1 : (int)((urand() + 1.0) * 0.5 * b);
        tr->prism[b] = (b % 3 == 2);
        for (int k = 0; k < 3; k++) {
            tr->n[b][k] = urand();
            tr->O0[b][k] = (tr->parent[b] >= 0 ? tr->O0[tr->parent[b]][k] : 0.0) + 0.5 * urand();
            tr->c0[b][k] = tr->O0[b][k] + 0.3 * urand();
        }
        unit(tr->n[b]);
        tr->m[b] = 1.0 + urand() * 0.5;
        /* A symmetric positive definite inertia A A^T + 0.1 I. */
        double A[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++)
                A[i][j] = 0.3 * urand();
        pkm_rigid_desc d = {.name = "b", .mass = tr->m[b]};
        memcpy(d.origin, tr->O0[b], sizeof(d.origin));
        memcpy(d.com, tr->c0[b], sizeof(d.com));
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                tr->J0[b][i][j] = 0.1 * (i == j);
                for (int a = 0; a < 3; a++)
                    tr->J0[b][i][j] += A[i][a] * A[j][a];
                d.inertia[i][j] = tr->J0[b][i][j];
            }
        int id;
        assert_int_equal(pkm_model_add_rigid(*out, &d, &id, &ctx), PKM_OK);
        dyn_add_joint(*out, "j", tr->prism[b] ? PKM_JOINT_PRISMATIC : PKM_JOINT_REVOLUTE,
                      tr->parent[b] < 0 ? PKM_GROUND : tr->parent[b], id, tr->O0[b], tr->n[b], 0,
                      1);
    }
}

static void test_canonical_blocks(void **state)
{
    (void)state;
    for (int trial = 0; trial < 5; trial++) {
        tree tr;
        pkm_model *m = NULL;
        random_tree(&tr, &m);
        double g[3] = {urand(), urand(), -9.81 + urand()};
        pkm_mbs *s = NULL;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(pkm_mbs_create(m, g, &s, &ctx), PKM_OK);
        double q[NB], qd[NB], qdd[NB], Q[NB], QD[NB], QDD[NB];
        for (int b = 0; b < NB; b++) {
            q[b] = urand() * 1.5;
            qd[b] = urand() * 2.0;
            qdd[b] = urand() * 3.0;
            int c;
            assert_int_equal(pkm_mbs_joint_coords(s, b, &c), 1);
            Q[c] = q[b];
            QD[c] = qd[b];
            QDD[c] = qdd[b];
        }
        pkm_mbs_set_state(s, Q, QD, QDD);
        pkm_joint_result res[NB];
        assert_int_equal(pkm_mbs_inverse(s, NULL, res, &ctx), PKM_OK);
        kin k;
        tree_kinematics(&tr, q, qd, &k);
        double err = 0.0, scale = 0.0;
        for (int u = 0; u < NB; u++) {
            double f[3], tau[3];
            canonical(&tr, &k, qd, qdd, g, u, f, tau);
            for (int i = 0; i < 3; i++) {
                err = fmax(err, fabs(res[u].point[i] - k.O[u][i]));
                err = fmax(err, fabs(res[u].wrench[i] - f[i]));
                err = fmax(err, fabs(res[u].wrench[3 + i] - tau[i]));
                scale = fmax(scale, fmax(fabs(f[i]), fabs(tau[i])));
            }
        }
        printf("random tree %d: |RNEA - canonical blocks| %.2e of %.2e\n", trial, err, scale);
        assert_true(err < 1e-12 * scale);
        pkm_mbs_destroy(&s);
        pkm_model_destroy(&m);
    }
}

/* 1/2 u^T M_FE u of body b under the twist V = (v, w) at the origin, element by element. */
static double fe_energy(const pkm_model *m, int b, const double V[6])
{
    const pkm_body *bd = pkm_model_body(m, b);
    const pkm_beam_type *bt =
        pkm_beam_type_find(bd->element == PKM_BEAM_CUBIC ? "cubic" : "quintic");
    assert_non_null(bt);
    const int nd = 2 * bt->dofs_per_node;
    double *M = malloc(sizeof(double) * (size_t)(nd * nd)), u[18], E = 0.0;
    assert_non_null(M);
    for (int e = bd->first_elem; e < bd->first_elem + bd->nelem; e++) {
        const pkm_elem *el = pkm_model_elem(m, e);
        const double *x[2] = {pkm_model_node(m, el->n1)->x, pkm_model_node(m, el->n2)->x};
        double R[3][3], l;
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        assert_int_equal(pkm_fem_beam3d_frame(x[0], x[1], bd->zref, R, &l, &ctx), PKM_OK);
        bt->mass(&bd->section, &bd->material, l, bd->mass_flags, M);
        for (int a = 0; a < 2; a++) {
            double v[3], t[3], vl[3], wl[3];
            cross(V + 3, x[a], t);
            dyn_add(V, t, v);
            pkm_mat3_apply(PKM_CONST33(R), v, vl);
            pkm_mat3_apply(PKM_CONST33(R), V + 3, wl);
            for (int d = 0; d < bt->dofs_per_node; d++) {
                const pkm_dof_kind kd = bt->dofs[d];
                double *ud = &u[a * bt->dofs_per_node + d];
                *ud = (kd <= PKM_DOF_W)    ? vl[kd - PKM_DOF_U]
                      : (kd <= PKM_DOF_RZ) ? wl[kd - PKM_DOF_RX]
                                           : 0.0;
            }
        }
        for (int i = 0; i < nd; i++)
            for (int j = 0; j < nd; j++)
                E += 0.5 * u[i] * M[i * nd + j] * u[j];
    }
    free(M);
    return E;
}

/* The kinetic energy of the model's lumped masses on body b's nodes under the twist V at the
 * origin: 1/2 m |v + w x x|^2 + 1/2 w^T J w, J about the node x (the finite-element model's
 * lumped mass, assembly/joints.c). */
static double lumped_energy(const pkm_model *m, int b, const double V[6])
{
    double E = 0.0;
    for (int i = 0; i < pkm_model_mass_count(m); i++) {
        const pkm_lumped_mass *l = pkm_model_mass(m, i);
        const pkm_node *n = pkm_model_node(m, l->node);
        if (n->body != b) continue;
        double t[3], v[3], Jw[3];
        cross(V + 3, n->x, t);
        dyn_add(V, t, v);
        pkm_mat3_apply(PKM_CONST33(l->inertia), V + 3, Jw);
        E += 0.5 * l->mass * pkm_vec3_dot(v, v) + 0.5 * pkm_vec3_dot(V + 3, Jw);
    }
    return E;
}

static void check_rigid_limit(const pkm_model *m)
{
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_create(m, (const double[3]){0, 0, -9.81}, &s, &ctx), PKM_OK);
    int nbeam = 0;
    for (int b = 0; b < pkm_model_body_count(m); b++) {
        if (pkm_model_body(m, b)->kind != PKM_BODY_BEAM) continue;
        nbeam++;
        double mass, c[3], J[3][3], I[6][6];
        pkm_mbs_body_mass(s, b, &mass, c, J);
        pkm_spatial_inertia(mass, c, PKM_CONST33(J), I);
        for (int t = 0; t < 6; t++) {
            double V[6], Er = 0.0;
            for (int k = 0; k < 6; k++)
                V[k] = urand() + (k == t);
            for (int i = 0; i < 6; i++)
                for (int j = 0; j < 6; j++)
                    Er += 0.5 * V[i] * I[i][j] * V[j];
            const double Ef = fe_energy(m, b, V) + lumped_energy(m, b, V);
            assert_true(fabs(Er - Ef) <= 1e-12 * Ef);
        }
    }
    assert_true(nbeam > 0);
    pkm_mbs_destroy(&s);
}

static void test_rigid_limit(void **state)
{
    (void)state;
    pkm_navaro_params nv;
    case_defaults("navaro", &nv, sizeof(nv));
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_int_equal(pkm_case_find("navaro")->build(&nv, pkm_case_find("navaro")->home, &m, &ctx),
                     PKM_OK);
    check_rigid_limit(m);
    pkm_model_destroy(&m);
    for (int v = 0; v < 3; v++) { /* paper, spherical variant, quintic elements */
        pkm_pss5upu_params ps;
        case_defaults("pss5upu", &ps, sizeof(ps));
        ps.variant = (v == 1) ? PKM_PSS5UPU_SPHERICAL : PKM_PSS5UPU_PAPER;
        ps.mass_flags = PKM_FEM_ROTARY_INERTIA;
        if (v == 2) ps.link_element = ps.screw_element = PKM_BEAM_QUINTIC;
        const pkm_case *c = pkm_case_find("pss5upu");
        assert_int_equal(c->build(&ps, c->home, &m, &ctx), PKM_OK);
        check_rigid_limit(m);
        pkm_model_destroy(&m);
    }
}

/* The rigid limit with lumped masses: NaVARo's joint masses (points at B, C, D, E and P) and two
 * masses with a rotary inertia added at joints of link 1, on either side. */
static void test_rigid_limit_lumped(void **state)
{
    (void)state;
    pkm_navaro_params nv;
    case_defaults("navaro", &nv, sizeof(nv));
    for (int k = 0; k < 5; k++)
        nv.joint_mass[k] = 0.1 * (k + 1);
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    const pkm_case *c = pkm_case_find("navaro");
    assert_int_equal(c->build(&nv, c->home, &m, &ctx), PKM_OK);
    const int n0 = pkm_model_mass_count(m);
    assert_int_equal(n0, 13); /* B, C, D, E on each leg, P once */
    for (int side = 0; side < 2; side++) {
        const pkm_mass_desc d = {
            .name = "rotary",
            .joint = 2 + side,
            .side = side,
            .mass = 0.3,
            .inertia = {{2e-3, 1e-4, 0}, {1e-4, 3e-3, -2e-4}, {0, -2e-4, 4e-3}}};
        assert_int_equal(pkm_model_add_mass(m, &d, NULL, &ctx), PKM_OK);
    }
    check_rigid_limit(m);
    pkm_model_destroy(&m);
}

/* A rigid model's mass matrix and kinetic energy at random rates; M of the RNEA. */
static void mass_and_energy(const pkm_model *m, const double *qd, double *M, double *T)
{
    pkm_mbs *s = NULL;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    assert_int_equal(pkm_mbs_create(m, (const double[3]){0, 0, -9.81}, &s, &ctx), PKM_OK);
    const int nq = pkm_mbs_coord_count(s);
    pkm_mbs_set_state(s, NULL, qd, NULL);
    pkm_mbs_mass_matrix(s, M, NULL);
    double V;
    pkm_mbs_energy(s, T, &V);
    double Tm = 0.0;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nq; j++)
            Tm += 0.5 * qd[i] * M[(size_t)i * nq + j] * qd[j];
    assert_true(fabs(*T - Tm) <= 1e-12 * Tm); /* the energy and the RNEA's M agree */
    pkm_mbs_destroy(&s);
}

/* Rotor inertias: pss5upu with elastic drives (motor.k > 0), the motor's rotor J on each screw's
 * revolute joint to the ground, a cut of the tree. The slider only translates, so that joint's
 * rate is the helical joint's (nut on screw): the mass matrix gains J on those diagonal entries
 * and nothing else, and the kinetic energy 1/2 qd^T M qd the rotors' 1/2 J qd_h^2. */
static void test_rotor_inertia(void **state)
{
    (void)state;
    const pkm_case *c = pkm_case_find("pss5upu");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    double *M[2] = {NULL, NULL}, T[2], *qd = NULL;
    int nq = 0, helical[8], nh = 0;
    const double J = 3.7e-4;
    for (int r = 0; r < 2; r++) {
        pkm_pss5upu_params ps;
        case_defaults("pss5upu", &ps, sizeof(ps));
        ps.motor_k = 2e3;
        ps.motor_inertia = r ? J : 0.0;
        pkm_model *m = NULL;
        assert_int_equal(c->build(&ps, c->home, &m, &ctx), PKM_OK);
        if (r == 0) {
            pkm_mbs *s = NULL;
            assert_int_equal(pkm_mbs_create(m, (const double[3]){0, 0, -9.81}, &s, &ctx), PKM_OK);
            nq = pkm_mbs_coord_count(s);
            for (int j = 0; j < pkm_model_joint_count(m); j++)
                for (int k = 0; k < nq && pkm_model_joint(m, j)->type == PKM_JOINT_HELICAL; k++)
                    if (strcmp(pkm_mbs_coord_name(s, k), pkm_model_joint(m, j)->name) == 0)
                        helical[nh++] = k;
            pkm_mbs_destroy(&s);
            qd = malloc(sizeof(double) * (size_t)nq);
            assert_non_null(qd);
            for (int k = 0; k < nq; k++)
                qd[k] = urand();
        }
        M[r] = malloc(sizeof(double) * (size_t)(nq * nq));
        assert_non_null(M[r]);
        mass_and_energy(m, qd, M[r], &T[r]);
        pkm_model_destroy(&m);
    }
    assert_int_equal(nh, 5);
    double err = 0.0, Mmax = 0.0, Th = 0.0;
    for (int i = 0; i < nq; i++)
        for (int j = 0; j < nq; j++) {
            int on = 0;
            for (int h = 0; h < nh; h++)
                on |= (i == helical[h] && j == i);
            err = fmax(err, fabs(M[1][i * nq + j] - M[0][i * nq + j] - (on ? J : 0.0)));
            Mmax = fmax(Mmax, fabs(M[0][i * nq + j]));
        }
    for (int h = 0; h < nh; h++)
        Th += 0.5 * J * qd[helical[h]] * qd[helical[h]];
    printf("rotor inertias: |M_J - M_0 - J e_h e_h^T| %.2e of %.2e; energy %.2e of %.2e\n", err,
           Mmax, fabs(T[1] - T[0] - Th), Th);
    assert_true(err <= 1e-12 * Mmax);
    assert_true(fabs(T[1] - T[0] - Th) <= 1e-12 * T[1]);
    free(M[0]);
    free(M[1]);
    free(qd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_blocks),
        cmocka_unit_test(test_rigid_limit),
        cmocka_unit_test(test_rigid_limit_lumped),
        cmocka_unit_test(test_rotor_inertia),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
