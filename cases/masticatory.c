/* cases/masticatory.c: the chewing robot's surrogate (pkm/masticatory.h): its parameter table,
 * the chain frames and the default motion.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/masticatory.h"

#include "cases/cases_impl.h"
#include "core/core_impl.h"
#include "pkm/spatial.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* A direction's components and the plane's slope are ratios; a product of inertia has either
 * sign. */
static const pkm_param_range range_ratio = {-1e3, 1e3, "a ratio"};
static const pkm_param_range range_product = {-1e6, 1e6, "a product of inertia"};

static const pkm_param_choice on_off[] = {{"off", 0}, {"on", 1}, {NULL, 0}};

#define P pkm_masticatory_params
#define MAST_CHAIN(k, key)                                                                         \
    PKM_CASE_VEC3(P, key ".M", chain[k].M, "m", pkm_range_position,                                \
                  key ": coupler end on the mandible"),                                            \
        PKM_PARAM_DOUBLE(P, key ".d.x", chain[k].d[0], "", range_ratio,                            \
                         key ": coupler direction, x"),                                            \
        PKM_PARAM_DOUBLE(P, key ".d.y", chain[k].d[1], "", range_ratio,                            \
                         key ": coupler direction, y"),                                            \
        PKM_PARAM_DOUBLE(P, key ".d.z", chain[k].d[2], "", range_ratio,                            \
                         key ": coupler direction, z"),                                            \
        PKM_PARAM_DOUBLE(P, key ".L", chain[k].L, "m", pkm_range_length, key ": coupler length"),  \
        PKM_PARAM_DOUBLE(P, key ".r", chain[k].r, "m", pkm_range_length, key ": crank length"),    \
        PKM_PARAM_DOUBLE(P, key ".J", chain[k].inertia, "kg m^2", pkm_range_inertia,               \
                         key ": crank inertia about its shaft")

static const pkm_param_desc params[] = {
    MAST_CHAIN(0, "chain1"),
    MAST_CHAIN(1, "chain3"),
    MAST_CHAIN(2, "chain5"),
    PKM_PARAM_DOUBLE(P, "coupler.rho", density, "kg/m^3", pkm_range_density, "coupler density"),
    PKM_PARAM_DOUBLE(P, "coupler.A", area, "m^2", pkm_range_area, "coupler section"),
    PKM_PARAM_DOUBLE(P, "mandible.mass", mass, "kg", pkm_range_mass, "mandible mass"),
    PKM_PARAM_DOUBLE(P, "mandible.Jxx", inertia[0][0], "kg m^2", pkm_range_inertia,
                     "mandible inertia about x, body axes"),
    PKM_PARAM_DOUBLE(P, "mandible.Jyy", inertia[1][1], "kg m^2", pkm_range_inertia,
                     "mandible inertia about y"),
    PKM_PARAM_DOUBLE(P, "mandible.Jzz", inertia[2][2], "kg m^2", pkm_range_inertia,
                     "mandible inertia about z"),
    PKM_PARAM_DOUBLE(P, "mandible.Jxz", inertia[0][2], "kg m^2", range_product,
                     "mandible inertia tensor's xz entry"),
    PKM_CASE_VEC3(P, "condyle", condyle, "m", pkm_range_position, "left condyle, body axes"),
    PKM_PARAM_DOUBLE(P, "surface.slope", slope, "", range_ratio,
                     "slope of the condyles' plane Z = slope X + c"),
    PKM_PARAM_ENUM(P, "higher_pairs", higher_pairs, on_off,
                   "the condyle contacts: on, or off (the 6-RSS twin)"),
    PKM_CASE_LOAD(P, "bite", "the bite (on the mandible; its point in body axes)"),
    PKM_CASE_DYNAMICS(P, "N m s/rad", "rad/s"),
};
#undef MAST_CHAIN
#undef P

static const char *const pose_names[4] = {"X", "Y", "alpha", "beta"};
static const char *const pose_units[4] = {"m", "m", "rad", "rad"};
static const double home[4] = {0.0, 0.0, 0.0, 0.0};
/* The mandible is the model's platform, driven through its six coordinates (masticatory_drive);
 * its turns compose as pkm_pose_rotation's Rx Ry Rz, as the floating joint's do. */
static const char *const driven_names[6] = {"platform.x",  "platform.y",  "platform.z",
                                            "platform.rx", "platform.ry", "platform.rz"};
/* pkm_masticatory_motion as a trajectory: amplitude, 1 Hz, phase per coordinate; 1 s. */
static const pkm_traj_coord chewing[4] = {{PKM_TRAJ_SINE, {0.0, 2e-3, 1.0, 0.0}},
                                          {PKM_TRAJ_SINE, {0.0, 1e-3, 1.0, 0.3}},
                                          {PKM_TRAJ_SINE, {0.0, 0.03, 1.0, 0.7}},
                                          {PKM_TRAJ_SINE, {0.0, 0.15, 1.0, 0.0}}};
static const pkm_traj_desc traj[1] = {
    {"chewing", "one chewing cycle: X, Y, alpha, beta sinusoids of 1 Hz", 1.0, chewing}};

/* No finite-element model here: its rigid-link modal limit is a test's (tests/test_mast_modal.c).
 */
static pkm_status masticatory_none(const void *p, const double *pose, pkm_model **out, pkm_ctx *ctx)
{
    (void)p, (void)pose;
    return pkm_case_build_none("masticatory", out, ctx);
}

/* The per-time quantities of the paper's coordinates (pkm_case.extra): the mandible's parasitic
 * Z and gamma, which the condyles' planes set; with inertia, MCI(a) of the target and of its
 * 6-RSS twin at the same pose, the target's MCI(b) and M_A (Cheng et al. 2024, eqs. 58-60:
 * defined with the cranks and the free coordinates taken independent, which a general model's
 * coordinates are not). */
/* clang-format off */
#define MA_ROW(i) {"MA" #i "1", "kg m^2"}, {"MA" #i "2", "kg m^2"}, {"MA" #i "3", "kg m^2"}, \
                  {"MA" #i "4", "kg m^2"}, {"MA" #i "5", "kg m^2"}, {"MA" #i "6", "kg m^2"}
#define MCI_SET(p) {p "1", "1"}, {p "2", "1"}, {p "3", "1"}, {p "4", "1"}, {p "5", "1"}, {p "6", "1"}
static const pkm_column extra_columns[] = {
    {"Z", "m"}, {"gamma", "rad"},
    MCI_SET("mci"), MCI_SET("twin_mci"), MCI_SET("mcib"),
    MA_ROW(1), MA_ROW(2), MA_ROW(3), MA_ROW(4), MA_ROW(5), MA_ROW(6)};
#undef MA_ROW
#undef MCI_SET
/* clang-format on */

static pkm_status masticatory_extra(const void *pv, double t, const double *pose,
                                    const double *dpose, const double *ddpose, int inertia,
                                    double *out, pkm_ctx *ctx)
{
    pkm_mast tg, tw;
    pkm_mast_state s, sw;
    double MA[36], MAw[36];
    pkm_status st = pkm_masticatory_states(pv, t, pose, dpose, ddpose, &tg, &s,
                                           inertia ? &tw : NULL, inertia ? &sw : NULL, ctx);
    if (st != PKM_OK) return st;
    out[0] = s.X[2], out[1] = s.X[5];
    if (!inertia) return PKM_OK;
    st = pkm_mast_joint_inertia(&tg, &s, MA, out + 2, out + 14, ctx);
    if (st == PKM_OK) st = pkm_mast_joint_inertia(&tw, &sw, MAw, out + 8, NULL, ctx);
    if (st == PKM_OK) memcpy(out + 20, MA, sizeof(MA));
    return st;
}

/* The mandible's six coordinates from the pose (X, Y, alpha, beta) with Z and gamma from the
 * target's contacts (pkm_case.drive; from home, where the condyles are on their planes at
 * Z = gamma = 0): the target's condyles follow their planes, and its 6-RSS twin (higher_pairs
 * off, no contacts) is driven through the same six, the target's pose (Cheng et al. 2024,
 * sec. 7.3's comparison). The run names the time of a failure; here it is unknown (NaN). */
static pkm_status masticatory_drive(const void *pv, const double *pose, const double *dpose,
                                    const double *ddpose, double *q, double *qd, double *qdd,
                                    pkm_ctx *ctx)
{
    pkm_mast tg;
    pkm_mast_state s;
    const pkm_status st =
        pkm_masticatory_states(pv, NAN, pose, dpose, ddpose, &tg, &s, NULL, NULL, ctx);
    if (st != PKM_OK) return st;
    memcpy(q, s.X, sizeof(s.X));
    memcpy(qd, s.Xd, sizeof(s.Xd));
    memcpy(qdd, s.Xdd, sizeof(s.Xdd));
    return PKM_OK;
}

const pkm_case pkm_masticatory_case_def = {
    .name = "masticatory",
    .description = "chewing robot (surrogate of Cheng et al. 2024): 6 R-S-S chains, 2 condyle "
                   "contacts, 4 free coordinates",
    .npose = PKM_CASE_NPOSE(4),
    .pose_names = pose_names,
    .pose_units = pose_units,
    .home = home,
    .params_size = sizeof(pkm_masticatory_params),
    .params = params,
    .nparams = (int)(sizeof(params) / sizeof(params[0])),
    .yaml = (const char *)pkm_masticatory_yaml,
    .yaml_name = "cases/masticatory.yaml",
    .formulation = PKM_FORM_NODAL,
    .build = masticatory_none,
    .analyses = PKM_CASE_DYNAMICS,
    .build_rigid = pkm_masticatory_build_rigid,
    .dynamics_offset = offsetof(pkm_masticatory_params, dynamics),
    .ndriven = 6,
    .driven_names = driven_names,
    .drive = masticatory_drive,
    .ntraj = 1,
    .traj = traj,
    .nextra = {2, (int)(sizeof(extra_columns) / sizeof(extra_columns[0]))},
    .extra_columns = extra_columns,
    .extra = masticatory_extra,
};

const pkm_case *pkm_masticatory_case(void)
{
    return &pkm_masticatory_case_def;
}

static void unit(double v[3])
{
    const double n = pkm_vec3_norm(v);
    for (int k = 0; k < 3; k++)
        v[k] /= n;
}

/* Chain k's frames (the case file's rule): S = M - L d, x = unit(e - (e.d) d) with e = e_X if
 * |d_X| < 0.9 else e_Z, z = unit(x cross d), y = d, G = S - r x; the mirror chain: points, x
 * and z reflected in y, y = z cross x. */
static void chain_pair(const pkm_masticatory_chain *c, pkm_rss out[2])
{
    double d[3] = {c->d[0], c->d[1], c->d[2]}, e[3] = {0, 0, 0}, x[3], z[3];
    unit(d);
    e[fabs(d[0]) < 0.9 ? 0 : 2] = 1.0;
    const double ed = pkm_vec3_dot(e, d);
    for (int i = 0; i < 3; i++)
        x[i] = e[i] - ed * d[i];
    unit(x);
    pkm_vec3_cross(x, d, z);
    unit(z);
    for (int side = 0; side < 2; side++) {
        pkm_rss *ch = &out[side];
        const double f[3] = {1.0, side ? -1.0 : 1.0, 1.0};
        double xs[3], zs[3], ys[3];
        for (int i = 0; i < 3; i++) {
            const double S = f[i] * (c->M[i] - c->L * d[i]);
            xs[i] = f[i] * x[i], zs[i] = f[i] * z[i];
            ch->M[i] = f[i] * c->M[i];
            ch->G[i] = S - c->r * xs[i];
        }
        pkm_vec3_cross(zs, xs, ys);
        for (int i = 0; i < 3; i++)
            ch->R0[i][0] = xs[i], ch->R0[i][1] = ys[i], ch->R0[i][2] = zs[i];
        ch->r = c->r, ch->L = c->L;
    }
}

pkm_status pkm_masticatory_mechanism(const pkm_masticatory_params *p, pkm_mast *m, pkm_ctx *ctx)
{
    static const char *const names[6] = {"theta1", "theta2", "theta3",
                                         "theta4", "theta5", "theta6"};
    memset(m, 0, sizeof(*m));
    pkm_status rc = pkm_case_params_check(&pkm_masticatory_case_def, p, ctx);
    if (rc != PKM_OK) return rc;
    m->nchain = 6;
    for (int k = 0; k < 3; k++) {
        chain_pair(&p->chain[k], &m->chain[2 * k]);
        for (int s = 0; s < 2; s++) {
            m->chain[2 * k + s].name = names[2 * k + s];
            m->crank_inertia[2 * k + s] = p->chain[k].inertia;
            m->coupler_mass[2 * k + s] = p->density * p->area * p->chain[k].L;
        }
    }
    m->mass = p->mass;
    memcpy(m->inertia, p->inertia, sizeof(m->inertia));
    m->inertia[2][0] = p->inertia[0][2];
    memcpy(m->gravity, p->dynamics.gravity, sizeof(m->gravity));
    if (p->higher_pairs) {
        m->ncontact = 2;
        for (int c = 0; c < 2; c++) {
            pkm_contact *ct = &m->contact[c];
            ct->name = c ? "condyle_R" : "condyle_L";
            memcpy(ct->point, p->condyle, sizeof(ct->point));
            ct->point[1] *= c ? -1.0 : 1.0;
            /* slope X - Z + c = 0 through the condyles at home: c = z - slope x */
            ct->surface.kind = PKM_SURFACE_PLANE;
            ct->surface.b[0] = p->slope, ct->surface.b[2] = -1.0;
            ct->surface.c = p->condyle[2] - p->slope * p->condyle[0];
        }
        m->par[0] = 2, m->par[1] = 5; /* Z, gamma */
    }
    return pkm_mast_check(m, ctx);
}

void pkm_masticatory_motion(double t, double q[4], double qd[4], double qdd[4])
{
    const double o = 2.0 * PKM_PI;
    for (int j = 0; j < 4; j++) {
        const double amp = chewing[j].c[1], ph = chewing[j].c[3];
        q[j] = amp * sin(o * t + ph);
        qd[j] = amp * o * cos(o * t + ph);
        qdd[j] = -o * o * q[j];
    }
}
