/* cases/hiab.c: the crane of Petrovic and Mattila 2022 as module chains (pkm/hiab.h).
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Numbers verbatim from github.com/petrovicrgoran/HydraulicManipulatorVDC @ e4133834
 * (BSD-3-Clause, (c) 2021 Goran Petrovic): initializeConstantGeometricData.m (L1, L11, L2, L21,
 * lc1, lc2, lc3, alpha1, alpha2), initializeConstantPositionVectors.m and
 * initializeConstantRotationMatrices.m (the offsets and rotations below),
 * initializeInertiaProperties.m (masses, centres of mass, inertia tensors as given, products of
 * inertia included as printed), initializeLinearActuatorsData.m (x0 = 0.83 m, strokes sp), and
 * gravity.Wg. The licence of these data: cases/hiab/LICENSE.txt. */
#include "pkm/hiab.h"

#include "core/core_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const pkm_chain_body bc1 = {307.29601379,
                                   {0.14178771, 0.16555780, 0},
                                   {{5.892211080, 5.476111360, -0.000019630},
                                    {5.476111360, 28.66965601, -0.000024550},
                                    {-0.000019630, -0.000024550, 29.78955950}}};
static const pkm_chain_body b11 = {
    25.52660174,
    {0.23805608, 0.13201777, 0},
    {{0.28426000, -0.06487287, 0}, {-0.06487287, 0.54237481, 0}, {0, 0, 0.67891020}}};
static const pkm_chain_body barrel = {
    17.36281648, {0.35781210, 0, 0}, {{0.03150902, 0, 0}, {0, 0.90735702, 0}, {0, 0, 0.90763033}}};
static const pkm_chain_body rod = {
    10.34519231, {0.55785997, 0, 0}, {{0.00370720, 0, 0}, {0, 0.55759812, 0}, {0, 0, 0.55785997}}};
static const pkm_chain_body bc2 = {
    54.58702836,
    {0.54319901, 0.10543875, 0},
    {{0.48071390, 0.52924041, 0}, {0.52924041, 5.80912352, 0}, {0, 0, 5.97255351}}};
static const pkm_chain_body b12 = {33.92850233,
                                   {0.60504569, 0.27199376, 0.00002484},
                                   {{1.18803886, -2.36786418, 0.00280315},
                                    {-2.36786418, 6.31493281, 0.00022322},
                                    {0.00280315, 0.00022322, 7.40915161}}};
static const pkm_chain_body p22 = {
    9.26136143, {0.62192523, 0, 0}, {{0.00662754, 0, 0}, {0, 1.48387017, 0}, {0, 0, 1.48398069}}};
static const pkm_chain_body b52 = {
    6.73059863, {0, 0, 0.56802906}, {{0.91789884, 0, 0}, {0, 0.91790043, 0}, {0, 0, 0.00091463}}};
static const pkm_chain_body p32 = {570.18877059,
                                   {0.25466704, -0.13034397, -0.01302248},
                                   {{46.81220713, 0.38607676, -0.00453819},
                                    {0.38607676, 71.92201786, -1.14320993},
                                    {-0.00453819, -1.14320993, 67.38128576}}};

/* Pin-to-pin length at zero stroke (cyl.x0), rod frame to rod pin (lc1, lc2), stroke (cyl.sp). */
#define HIAB_X0 0.83
#define HIAB_LC 0.745
#define HIAB_SP 0.59

static void rot_z(double a, double R[3][3])
{
    const double T[3][3] = {{cos(a), -sin(a), 0}, {sin(a), cos(a), 0}, {0, 0, 1}};
    memcpy(R, T, sizeof(T));
}

static void identity(pkm_chain_pose *p)
{
    memset(p, 0, sizeof(*p));
    rot_z(0.0, p->R);
}

/* A lift or tilt loop: the branch with q1, q11, q12 < 0 (the figures of the data set). */
static void loop(pkm_chain_module *m, const char *name, double La, double Lb)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->name, sizeof(m->name), "%s", name);
    m->type = PKM_CHAIN_LOOP;
    m->qmin = 0.0, m->qmax = HIAB_SP;
    identity(&m->joint);
    m->La = La, m->Lb = Lb, m->x0 = HIAB_X0, m->lc = HIAB_LC;
    m->sign[0] = m->sign[1] = m->sign[2] = -1;
    m->body[PKM_CHAIN_BARREL] = barrel;
    m->body[PKM_CHAIN_ROD] = rod;
}

/* The pillar frame Bc1 in the world: W_r_WBc1, Rz(alpha1). */
static void pillar(pkm_chain_pose *p)
{
    rot_z(1.9515432018109, p->R);
    p->r[0] = 0.185, p->r[1] = -0.085, p->r[2] = 0.0;
}

static void lift(pkm_chain_module *m)
{
    loop(m, "cyl1", 1.0071227324212, 0.37610632101293);
    rot_z(0.24548563270531, m->end.R); /* Tc1_Rot_Bc2 */
    m->end.r[0] = 0.098495302558553, m->end.r[1] = 0.01838181329939;
    m->body[PKM_CHAIN_MOVING] = b11;
    m->body[PKM_CHAIN_END] = bc2;
}

static void tilt(pkm_chain_module *m)
{
    static const pkm_chain_pose tc2_p22 = {
        {{0.95853460763586, -0.27664713597974, 0.0683942111482},
         {0.28497614981675, 0.93051946315663, -0.23004808784757},
         {0, 0.23999977258511, 0.9707729441837}},
        {-0.048858374920227, 0.36587359346146, 0.035276938723102}};
    loop(m, "cyl2", 1.132185817991, 0.30901132665325);
    m->end = tc2_p22;
    m->body[PKM_CHAIN_MOVING] = b12;
    m->body[PKM_CHAIN_END] = p22;
}

/* The extension: B52 slides along x of P22 from (0.041, 0, 0), the end mass P32 at lc3 = 1.2 m
 * on it; stroke cylT2.sp. */
static void extension(pkm_chain_module *m)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->name, sizeof(m->name), "ext");
    m->type = PKM_CHAIN_PRISMATIC;
    m->qmin = 0.0, m->qmax = 1.1;
    identity(&m->joint);
    m->joint.r[0] = 0.041;
    identity(&m->end);
    m->end.r[0] = 1.2;
    m->body[PKM_CHAIN_MOVING] = b52;
    m->body[PKM_CHAIN_END] = p32;
}

/* The slewing joint about world y (joint frame Rx(-pi/2): its z is world y) carrying the
 * pillar, whose frame is Bc1's at zero slew. */
static void slew(pkm_chain_module *m)
{
    memset(m, 0, sizeof(*m));
    snprintf(m->name, sizeof(m->name), "slew");
    m->type = PKM_CHAIN_REVOLUTE;
    m->qmin = -PKM_PI, m->qmax = PKM_PI;
    const pkm_chain_pose jf = {{{1, 0, 0}, {0, 0, 1}, {0, -1, 0}}, {0, 0, 0}};
    m->joint = jf;
    pkm_chain_pose w;
    pillar(&w);
    /* end = joint^-1 o pillar: R_j^T R_w, R_j^T r_w */
    for (int i = 0; i < 3; i++) {
        m->end.r[i] = 0.0;
        for (int j = 0; j < 3; j++) {
            m->end.R[i][j] = 0.0;
            for (int k = 0; k < 3; k++)
                m->end.R[i][j] += jf.R[k][i] * w.R[k][j];
            m->end.r[i] += jf.R[j][i] * w.r[j];
        }
    }
    m->body[PKM_CHAIN_END] = bc1;
}

pkm_status pkm_hiab_modules(const char *name, pkm_chain_module *mods, int *n, pkm_chain_pose *root,
                            double gravity[3], pkm_ctx *ctx)
{
    gravity[0] = 0.0, gravity[1] = -PKM_HIAB_GRAVITY, gravity[2] = 0.0;
    if (name != NULL && strcmp(name, "boom1") == 0) {
        lift(&mods[0]);
        mods[0].body[PKM_CHAIN_BASE] = bc1;
        pillar(root);
        *n = 1;
        return PKM_OK;
    }
    if (name != NULL && strcmp(name, "crane4") == 0) {
        slew(&mods[0]);
        lift(&mods[1]);
        tilt(&mods[2]);
        extension(&mods[3]);
        identity(root);
        *n = 4;
        return PKM_OK;
    }
    return PKM_FAIL(ctx, PKM_ERR_INVALID, "no machine %s (boom1, crane4)",
                    name != NULL ? name : "(null)");
}

pkm_status pkm_hiab_chain(const char *name, pkm_chain **out, pkm_ctx *ctx)
{
    pkm_chain_module mods[4];
    pkm_chain_pose root;
    double g[3];
    int n = 0;
    *out = NULL;
    const pkm_status st = pkm_hiab_modules(name, mods, &n, &root, g, ctx);
    return st != PKM_OK ? st : pkm_chain_create(n, mods, &root, g, out, ctx);
}
