/* tests/test_robot.c: robot files (include/pkm/robot.h, docs/robot-files.md):
 * mechanisms described by their topology, their inverse kinematics solved by
 * Newton on the loop closure, against independent models of the same
 * mechanisms. SPDX-License-Identifier: LGPL-2.1-or-later */
#include "navaro_defaults.h"
#include "test_util.h"

#include "core/core_impl.h"
#include "pkm/casefile.h"
#include "pkm/io.h"
#include "pkm/robot.h"
#include "pkm/spatial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLES PKM_SOURCE_DIR "/examples/"

/* Case file at path, loaded (pkm_case_params_destroy). */
static void *load(const char *path, const pkm_case **c)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    void *params = NULL;
    assert_pkm_ok(pkm_case_file_load(path, c, &params, &ctx), &ctx);
    return params;
}

/* The lowest nev frequencies of case c at pose in formulation f. */
static void case_lowest(const pkm_case *c, const void *params, const double *pose,
                        pkm_formulation f, int nev, double *omega2)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(c->build(params, pose, &m, &ctx), &ctx);
    model_lowest(m, f, nev, omega2, NULL);
    pkm_model_destroy(&m);
}

/* 1. NaVARo described by its topology (examples/navaro.yaml, the built-in's
 * geometry at home) gives the built-in case's eigenvalues at the eight poses of
 * Table 3 to 1e-10: the Newton closure places every body where the closed-form
 * kinematics of cases/navaro.c does. */
static void test_navaro_topology(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *params = load(EXAMPLES "navaro.yaml", &c);
    assert_int_equal(c->npose, 3);
    assert_string_equal(c->pose_names[2], "theta");
    assert_int_equal(c->formulation, PKM_FORM_TREE);
    const pkm_navaro_params nav = navaro_defaults();
    const pkm_case *builtin = pkm_case_find("navaro");
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_table *t = NULL;
    assert_pkm_ok(pkm_table_read(PKM_SOURCE_DIR "/cases/navaro/table3_cast3m.csv", 3, &t, &ctx),
                  &ctx);
    assert_int_equal(t->nrows, 8);
    enum { NEV = 12 };
    double worst = 0.0;
    for (int r = 0; r < t->nrows; r++) {
        double a[NEV], b[NEV];
        case_lowest(c, params, t->pose + 3 * r, PKM_FORM_TREE, NEV, a);
        case_lowest(builtin, &nav, t->pose + 3 * r, PKM_FORM_TREE, NEV, b);
        for (int k = 0; k < NEV; k++)
            worst = fmax(worst, fabs(a[k] - b[k]) / b[k]);
    }
    print_message("navaro topology vs built-in, 8 Table 3 poses x %d eigenvalues: %.2e\n", NEV,
                  worst);
    assert_true(worst < 1e-10);
    pkm_table_destroy(&t);
    pkm_case_params_destroy(&params);
}

/* Steel of examples/3rrr.yaml and delta.yaml. */
static const pkm_material steel = {.E = 210e9, .G = 80.77e9, .rho = 7850.0};

static void add_beam(pkm_model *m, const char *name, int npoints, const double (*pts)[3],
                     const int *nelem, const double zref[3], pkm_section sec, pkm_material mat)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_beam_desc d = {.name = name,
                       .npoints = npoints,
                       .points = pts,
                       .nelem = nelem,
                       .section = sec,
                       .material = mat,
                       .mass_flags = PKM_FEM_ROTARY_INERTIA};
    memcpy(d.zref, zref, sizeof(d.zref));
    assert_pkm_ok(pkm_model_add_beam(m, &d, NULL, &ctx), &ctx);
}

static void add_joint(pkm_model *m, const char *name, pkm_joint_type type, int a, int b,
                      const double point[3], const double axis[3], const double axis2[3])
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_joint_desc d = {.name = name, .type = type, .body_a = a, .body_b = b};
    memcpy(d.point, point, sizeof(d.point));
    if (axis != NULL) memcpy(d.axis, axis, sizeof(d.axis));
    if (axis2 != NULL) memcpy(d.axis2, axis2, sizeof(d.axis2));
    assert_pkm_ok(pkm_model_add_joint(m, &d, NULL, &ctx), &ctx);
}

static int add_platform(pkm_model *m, const double origin[3], double mass, const double J[3])
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_rigid_desc d = {.name = "platform", .mass = mass};
    memcpy(d.origin, origin, sizeof(d.origin));
    memcpy(d.com, origin, sizeof(d.com));
    for (int k = 0; k < 3; k++)
        d.inertia[k][k] = J[k];
    int id = -1;
    assert_pkm_ok(pkm_model_add_rigid(m, &d, &id, &ctx), &ctx);
    assert_pkm_ok(pkm_model_set_platform(m, id, &ctx), &ctx);
    return id;
}

/* The 3-RRR of examples/3rrr.yaml through the C API at pose (x, y, theta), its
 * elbows placed by the closed-form inverse kinematics of a 2R leg (the
 * intersection of two circles), on the counterclockwise side of A_i -> C_i as
 * in the file. */
static pkm_model *rrr_model(const double pose[3])
{
    const double Rb = 0.5, Rp = 0.15, l = 0.3;
    const pkm_section link = {
        .A = 200e-6, .Iy = 1666.6667e-12, .Iz = 6666.6667e-12, .I0 = 4580e-12, .Ip = 8333.3333e-12};
    const double ez[3] = {0, 0, 1}, J[3] = {0.0045, 0.0045, 0.009};
    const int ne = 4;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    double pt[3][3][3]; /* A, B, C of each leg */
    for (int i = 0; i < 3; i++) {
        const double g = PKM_PI / 2 + 2 * PKM_PI / 3 * i;
        double *A = pt[i][0], *B = pt[i][1], *C = pt[i][2];
        A[0] = Rb * cos(g), A[1] = Rb * sin(g), A[2] = 0;
        C[0] = pose[0] + Rp * cos(g + pose[2]), C[1] = pose[1] + Rp * sin(g + pose[2]), C[2] = 0;
        const double phi = atan2(C[1] - A[1], C[0] - A[0]);
        const double a = acos(hypot(C[0] - A[0], C[1] - A[1]) / (2 * l));
        B[0] = A[0] + l * cos(phi + a), B[1] = A[1] + l * sin(phi + a), B[2] = 0;
        const double prox[2][3] = {{A[0], A[1], 0}, {B[0], B[1], 0}};
        const double dist[2][3] = {{B[0], B[1], 0}, {C[0], C[1], 0}};
        add_beam(m, "proximal", 2, prox, &ne, ez, link, steel);
        add_beam(m, "distal", 2, dist, &ne, ez, link, steel);
    }
    const double P[3] = {pose[0], pose[1], 0};
    const int plat = add_platform(m, P, 1.2, J);
    for (int i = 0; i < 3; i++) {
        add_joint(m, "A", PKM_JOINT_CLAMPED, PKM_GROUND, 2 * i, pt[i][0], NULL, NULL);
        add_joint(m, "B", PKM_JOINT_REVOLUTE, 2 * i, 2 * i + 1, pt[i][1], ez, NULL);
        add_joint(m, "C", PKM_JOINT_REVOLUTE, 2 * i + 1, plat, pt[i][2], ez, NULL);
    }
    return m;
}

/* Largest relative difference of the nev lowest eigenvalues of case c (params)
 * and of model m at pose, nodal formulation. */
static double against_model(const pkm_case *c, const void *params, const double *pose, pkm_model *m,
                            int nev)
{
    double a[24], b[24];
    case_lowest(c, params, pose, PKM_FORM_NODAL, nev, a);
    model_lowest(m, PKM_FORM_NODAL, nev, b, NULL);
    pkm_model_destroy(&m);
    double worst = 0.0;
    for (int k = 0; k < nev; k++)
        worst = fmax(worst, fabs(a[k] - b[k]) / b[k]);
    return worst;
}

/* 2. The 3-RRR robot file against the same robot built through the C API with
 * its closed-form inverse kinematics, over a 3 x 3 x 3 map of (x, y, theta)
 * around home, 12 eigenvalues. */
static void test_3rrr(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *params = load(EXAMPLES "3rrr.yaml", &c);
    assert_int_equal(c->npose, 3);
    double worst = 0.0;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            for (int k = -1; k <= 1; k++) {
                const double pose[3] = {0.05 * i, 0.04 * j, 0.15 * k};
                worst = fmax(worst, against_model(c, params, pose, rrr_model(pose), 12));
            }
    print_message("3-RRR file vs C API, 27 poses x 12 eigenvalues: %.2e\n", worst);
    assert_true(worst < 1e-9);
    pkm_case_params_destroy(&params);
}

/* Aluminium of examples/delta.yaml. */
static const pkm_material aluminium = {.E = 70e9, .G = 26e9, .rho = 2700.0};

/* The Delta of examples/delta.yaml: base radius, arm, forearm, platform radius,
 * half width of the parallelograms, arm angle below the horizontal at home. */
enum { DELTA_RB, DELTA_LA, DELTA_LF, DELTA_RP, DELTA_W, DELTA_Q0 };
static const double delta_dim[6] = {0.2, 0.2, 0.45, 0.05, 0.04, PKM_PI / 6};

/* Leg i's radial and tangent directions. */
static void delta_dirs(int i, double u[3], double t[3])
{
    const double g = 2 * PKM_PI / 3 * i;
    u[0] = cos(g), u[1] = sin(g), u[2] = 0;
    t[0] = -sin(g), t[1] = cos(g), t[2] = 0;
}

/* The closed-form inverse kinematics of a Delta leg: the arm angle q (below the
 * horizontal) that puts the elbow A + La (cos q u - sin q e_z) at Lf from the
 * platform point C = P + Rp u: a cos q + b sin q = c, the root nearest the home
 * angle (the branch of the file). Its elbow in E. */
static double delta_arm(int i, const double P[3], double E[3])
{
    const double *d = delta_dim;
    double u[3], t[3], cu = 0, ct = 0, cz = 0;
    delta_dirs(i, u, t);
    for (int k = 0; k < 3; k++) {
        const double ck = P[k] + d[DELTA_RP] * u[k] - d[DELTA_RB] * u[k];
        cu += ck * u[k], ct += ck * t[k], cz += ck * (k == 2);
    }
    const double a = -2 * d[DELTA_LA] * cu, b = 2 * d[DELTA_LA] * cz;
    const double c =
        d[DELTA_LF] * d[DELTA_LF] - d[DELTA_LA] * d[DELTA_LA] - (cu * cu + ct * ct + cz * cz);
    const double phi = atan2(b, a), h = acos(c / hypot(a, b));
    const double q = fabs(phi + h - d[DELTA_Q0]) < fabs(phi - h - d[DELTA_Q0]) ? phi + h : phi - h;
    for (int k = 0; k < 3; k++)
        E[k] = d[DELTA_RB] * u[k] + d[DELTA_LA] * (cos(q) * u[k] - sin(q) * (k == 2));
    return q;
}

/* The platform centre's height at home (the file's assembly configuration). */
static double delta_z0(void)
{
    const double *d = delta_dim;
    const double h = d[DELTA_RB] + d[DELTA_LA] * cos(d[DELTA_Q0]) - d[DELTA_RP];
    return -d[DELTA_LA] * sin(d[DELTA_Q0]) - sqrt(d[DELTA_LF] * d[DELTA_LF] - h * h);
}

/* The Delta of examples/delta.yaml through the C API at the platform centre P,
 * every arm at its closed-form angle. Elbow bars and forearms are round (their
 * zref does not matter), the arms' zref is their own axis of turn. */
static pkm_model *delta_model(const double P[3])
{
    const pkm_section arm = {
        .A = 450e-6, .Iy = 33750e-12, .Iz = 8437.5e-12, .I0 = 23193e-12, .Ip = 42187.5e-12};
    const pkm_section bar = {.A = 113.097e-6,
                             .Iy = 1017.88e-12,
                             .Iz = 1017.88e-12,
                             .I0 = 2035.75e-12,
                             .Ip = 2035.75e-12};
    const pkm_section fore = {.A = 28.2743e-6,
                              .Iy = 289.812e-12,
                              .Iz = 289.812e-12,
                              .I0 = 579.624e-12,
                              .Ip = 579.624e-12};
    const double ez[3] = {0, 0, 1}, J[3] = {3e-4, 3e-4, 5e-4}, w = delta_dim[DELTA_W];
    const int four = 4, two[2] = {1, 1};
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_model *m = NULL;
    assert_pkm_ok(pkm_model_create(&m, &ctx), &ctx);
    double u[3][3], t[3][3], A[3][3], E[3][3], Em[3][2][3], Pm[3][2][3];
    for (int i = 0; i < 3; i++) {
        delta_dirs(i, u[i], t[i]);
        delta_arm(i, P, E[i]);
        for (int k = 0; k < 3; k++) {
            A[i][k] = delta_dim[DELTA_RB] * u[i][k];
            for (int s = 0; s < 2; s++) {
                Em[i][s][k] = E[i][k] + (2 * s - 1) * w * t[i][k];
                Pm[i][s][k] = P[k] + delta_dim[DELTA_RP] * u[i][k] + (2 * s - 1) * w * t[i][k];
            }
        }
        const double arm_pts[2][3] = {{A[i][0], A[i][1], A[i][2]}, {E[i][0], E[i][1], E[i][2]}};
        const double bar_pts[3][3] = {{Em[i][0][0], Em[i][0][1], Em[i][0][2]},
                                      {E[i][0], E[i][1], E[i][2]},
                                      {Em[i][1][0], Em[i][1][1], Em[i][1][2]}};
        add_beam(m, "arm", 2, arm_pts, &four, t[i], arm, aluminium);
        add_beam(m, "bar", 3, bar_pts, two, ez, bar, steel);
        for (int s = 0; s < 2; s++) {
            const double f_pts[2][3] = {{Em[i][s][0], Em[i][s][1], Em[i][s][2]},
                                        {Pm[i][s][0], Pm[i][s][1], Pm[i][s][2]}};
            add_beam(m, "forearm", 2, f_pts, &four, t[i], fore, aluminium);
        }
    }
    const int plat = add_platform(m, P, 0.3, J);
    for (int i = 0; i < 3; i++) {
        const int b = 4 * i;
        add_joint(m, "A", PKM_JOINT_CLAMPED, PKM_GROUND, b, A[i], NULL, NULL);
        add_joint(m, "K", PKM_JOINT_CLAMPED, b, b + 1, E[i], NULL, NULL);
        for (int s = 0; s < 2; s++) {
            double f[3], n[3];
            for (int k = 0; k < 3; k++)
                f[k] = Pm[i][s][k] - Em[i][s][k];
            pkm_vec3_cross(t[i], f, n);
            add_joint(m, "U", PKM_JOINT_UNIVERSAL, b + 1, b + 2 + s, Em[i][s], t[i], n);
        }
        for (int s = 0; s < 2; s++)
            add_joint(m, "S", PKM_JOINT_SPHERICAL, b + 2 + s, plat, Pm[i][s], NULL, NULL);
    }
    return m;
}

/* 3. The Delta robot file: its Newton kinematics puts every elbow where the
 * closed-form inverse kinematics of the Delta does (1e-12 m) and keeps the
 * platform from turning, and its eigenvalues equal those of the same robot
 * built through the C API at the closed-form configuration, over a 3 x 3 x 3
 * map of the platform centre. */
static void test_delta(void **state)
{
    (void)state;
    const pkm_case *c = NULL;
    void *params = load(EXAMPLES "delta.yaml", &c);
    const pkm_robot *r = params; /* the robot is the first member of a robot case's params */
    assert_int_equal(c->npose, 3);
    assert_true(fabs(c->home[2] - delta_z0()) < 1e-15);
    double(*R)[3][3] = calloc((size_t)r->nbody, sizeof(*R)),
    (*p)[3] = calloc((size_t)r->nbody, sizeof(*p));
    double worst = 0.0, elbow = 0.0, turn = 0.0;
    for (int i = -1; i <= 1; i++)
        for (int j = -1; j <= 1; j++)
            for (int k = -1; k <= 1; k++) {
                const double P[3] = {0.06 * i, 0.05 * j, c->home[2] + 0.05 * k};
                pkm_ctx ctx;
                pkm_ctx_clear(&ctx);
                assert_pkm_ok(pkm_robot_solve(r, P, R, p, NULL, &ctx), &ctx);
                for (int leg = 0; leg < 3; leg++) {
                    double E[3], E0[3], x[3];
                    delta_arm(leg, P, E);
                    delta_arm(leg, (const double[3]){0, 0, c->home[2]}, E0);
                    for (int a = 0; a < 3; a++)
                        x[a] = R[4 * leg][a][0] * E0[0] + R[4 * leg][a][1] * E0[1] +
                               R[4 * leg][a][2] * E0[2] + p[4 * leg][a];
                    for (int a = 0; a < 3; a++)
                        elbow = fmax(elbow, fabs(x[a] - E[a]));
                }
                for (int a = 0; a < 3; a++)
                    for (int b = 0; b < 3; b++)
                        turn = fmax(turn, fabs(R[r->platform][a][b] - (a == b)));
                worst = fmax(worst, against_model(c, params, P, delta_model(P), 12));
            }
    print_message("Delta: elbows %.2e m from the closed form, platform turn "
                  "%.2e, file vs C API "
                  "27 poses x 12 eigenvalues %.2e\n",
                  elbow, turn, worst);
    assert_true(elbow < 1e-12);
    assert_true(turn < 1e-12);
    assert_true(worst < 1e-9);
    free(R);
    free(p);
    pkm_case_params_destroy(&params);
}

/* The map file `pkmflex map` wrote (fixture robot_maps, tests/CMakeLists.txt) against the
 * C-API build of the same robot at every grid point: the largest relative difference of the
 * frequencies; every point must be computed. */
static double map_against(const char *name, pkm_model *(*build)(const double P[3]))
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_map map;
    char path[512];
    snprintf(path, sizeof path, "%s/%s", PKM_TEST_OUT, name);
    assert_pkm_ok(pkm_map_read_h5(path, &map, &ctx), &ctx);
    assert_int_equal(map.npose, 3);
    assert_true(map.npoints >= 9 && map.nev <= 24);
    double worst = 0.0;
    for (int64_t p = 0; p < map.npoints; p++) {
        assert_int_equal(map.status[p], PKM_POSE_OK);
        double pose[3], w2[24];
        pkm_map_pose(&map, p, pose);
        pkm_model *m = build(pose);
        model_lowest(m, PKM_FORM_NODAL, map.nev, w2, NULL);
        pkm_model_destroy(&m);
        for (int k = 0; k < map.nev; k++) {
            const double f = sqrt(w2[k]) / (2.0 * PKM_PI);
            worst = fmax(worst, fabs(map.freq_hz[p * map.nev + k] - f) / f);
        }
    }
    pkm_map_free(&map);
    return worst;
}

/* 5. The maps of examples/3rrr.yaml and delta.yaml written by the command line equal the
 * independent C-API builds pose by pose. */
static void test_cli_maps(void **state)
{
    (void)state;
    const double rrr = map_against("robot_3rrr_map.h5", rrr_model),
                 delta = map_against("robot_delta_map.h5", delta_model);
    print_message("pkmflex map files vs C API: 3-RRR %.2e, Delta %.2e\n", rrr, delta);
    assert_true(rrr < 1e-9);
    assert_true(delta < 1e-9);
}

/* A one-link robot: a beam from the ground to a platform, pose (y, theta). */
#define ONE_LEG_HEAD                                                                               \
    "robot: one-leg\n"                                                                             \
    "materials: {steel: {E: 210 GPa, G: 80 GPa, rho: 7850}}\n"                                     \
    "sections: {bar: {A: 1e-4, Iy: 1e-9, Iz: 1e-9, I0: 2e-9, Ip: 2e-9}}\n"                         \
    "bodies:\n"                                                                                    \
    "  - {name: link, beam: {points: [[0, 0, 0], [0.5, 0, 0]], section: bar, material: steel, "    \
    "zref: [0, 0, 1]}}\n"                                                                          \
    "  - {name: platform, rigid: {origin: [0.5, 0, 0], mass: 1}}\n"
#define ONE_LEG_A                                                                                  \
    "  - {name: A, type: R, bodies: [ground, link], point: [0, 0, 0], axis: [0, 0, 1], "           \
    "actuated: true}\n"
#define ONE_LEG_C                                                                                  \
    "  - {name: C, type: R, bodies: [link, platform], point: [0.5, 0, 0], axis: [0, 0, 1], "       \
    "locked: true}\n"
#define ONE_LEG_POSE "pose:\n  - {name: y, platform: y}\n  - {name: theta, platform: rz}\n"

/* Load text as file "t.yaml": the status, and the message in msg. */
static pkm_status load_text(const char *text, char *msg, size_t size)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_case *c = NULL;
    void *params = NULL;
    const pkm_status st = pkm_case_text_load(text, strlen(text), "t.yaml", &c, &params, &ctx);
    snprintf(msg, size, "%s", ctx.msg);
    pkm_case_params_destroy(&params);
    return st;
}

/* text fails to load with PKM_ERR_PARSE at "t.yaml:where: " and a message holding what. */
static void fails_at(const char *text, const char *where, const char *what)
{
    char msg[600], head[64];
    assert_int_equal(load_text(text, msg, sizeof(msg)), PKM_ERR_PARSE);
    snprintf(head, sizeof(head), "t.yaml:%s: ", where);
    if (strncmp(msg, head, strlen(head)) != 0 || strstr(msg, what) == NULL)
        print_error("want %s ... %s, got: %s\n", head, what, msg);
    assert_true(strncmp(msg, head, strlen(head)) == 0 && strstr(msg, what) != NULL);
}

/* 4. Faults of the mechanism at their FILE:LINE:COLUMN: a joint on a missing body, a body
 * without a joint, a joint off its body, a loop that cannot close at the home pose, pose
 * coordinates that leave the mechanism free or exceed its mobility; the same file without the
 * fault loads. */
static void test_robot_errors(void **state)
{
    (void)state;
    char msg[600];
    const char *ok = ONE_LEG_HEAD "platform: platform\njoints:\n" ONE_LEG_A ONE_LEG_C ONE_LEG_POSE;
    assert_int_equal(load_text(ok, msg, sizeof(msg)), PKM_OK);
    fails_at(
        ONE_LEG_HEAD
        "platform: platform\njoints:\n"
        "  - {name: A, type: R, bodies: [ground, lnk], point: [0, 0, 0]}\n" ONE_LEG_C ONE_LEG_POSE,
        "9:41", "joint 'A': no body named 'lnk'");
    fails_at(ONE_LEG_HEAD "  - {name: spare, rigid: {origin: [0, 1, 0]}}\n"
                          "platform: platform\njoints:\n" ONE_LEG_A ONE_LEG_C ONE_LEG_POSE,
             "7:5", "body 'spare' has no joint");
    fails_at(ONE_LEG_HEAD "platform: platform\njoints:\n" ONE_LEG_A
                          "  - {name: C, type: R, bodies: [link, platform], point: [0.4, 0, 0], "
                          "axis: [0, 0, 1]}\n" ONE_LEG_POSE,
             "10:5", "is not a node of beam 'link'");
    /* |y| = 0.6 m beyond the 0.5 m link: the cut C stays open. */
    fails_at(ONE_LEG_HEAD "platform: platform\njoints:\n" ONE_LEG_A ONE_LEG_C
                          "pose:\n  - {name: y, platform: y, home: 600 mm}\n"
                          "  - {name: theta, platform: rz}\n",
             "10:5", "joint 'C' stays open");
    fails_at(ONE_LEG_HEAD "platform: platform\njoints:\n" ONE_LEG_A ONE_LEG_C
                          "pose:\n  - {name: y, platform: y}\n",
             "12:3", "the pose coordinates do not fix the mechanism");
    /* Three pose coordinates for the RR leg's two degrees of freedom: refused at the pose block
     * with the mobility its closure's rank gives (before: loaded, every pose but home then out
     * of the workspace). */
    fails_at(ONE_LEG_HEAD "platform: platform\njoints:\n" ONE_LEG_A ONE_LEG_C ONE_LEG_POSE
                          "  - {name: x, platform: x}\n",
             "12:3", "3 pose coordinates, but the mechanism has mobility 2");
    fails_at(ONE_LEG_HEAD "platform: link\njoints:\n" ONE_LEG_A ONE_LEG_C ONE_LEG_POSE, "7:11",
             "not a rigid body");
    /* A syntax error of a robot file at its place, not as a case file's unknown key 'robot'. */
    fails_at("robot: r\nbodies: [{name: a\n", "3:1", "syntax error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_navaro_topology), cmocka_unit_test(test_3rrr),
        cmocka_unit_test(test_delta),           cmocka_unit_test(test_robot_errors),
        cmocka_unit_test(test_cli_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
