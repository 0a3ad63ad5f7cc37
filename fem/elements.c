/* fem/elements.c: the const type table of beam elements (one list for names, kernels and the
 * conformance battery of tests/test_fem_elements.c).
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/fem.h"

#include <stddef.h>
#include <string.h>

/* The kernels take fixed-size arrays; the table passes them row-major through one signature. */
static void cubic_stiffness(const pkm_section *s, const pkm_material *m, double l, double *K)
{
    pkm_fem_beam3d_stiffness(s, m, l, (double(*)[12])K);
}

static void cubic_mass(const pkm_section *s, const pkm_material *m, double l, unsigned f, double *M)
{
    pkm_fem_beam3d_mass(s, m, l, f, (double(*)[12])M);
}

static void quintic_stiffness(const pkm_section *s, const pkm_material *m, double l, double *K)
{
    pkm_fem_quintic_stiffness(s, m, l, (double(*)[18])K);
}

static void quintic_mass(const pkm_section *s, const pkm_material *m, double l, unsigned f,
                         double *M)
{
    pkm_fem_quintic_mass(s, m, l, f, (double(*)[18])M);
}

/* The quintic field with its curvature dofs held at zero at every node (the lead-screw element
 * of Li et al. 2020, eq. 15, as printed, in 3D): the quintic's twist rows and columns. */
static void twist_block(const double *A, double *B)
{
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            B[i * 12 + j] = A[(i + 3 * (i / 6)) * 18 + j + 3 * (j / 6)];
}

static void quintic_c0_stiffness(const pkm_section *s, const pkm_material *m, double l, double *K)
{
    double K18[18][18];
    pkm_fem_quintic_stiffness(s, m, l, K18);
    twist_block(&K18[0][0], K);
}

static void quintic_c0_mass(const pkm_section *s, const pkm_material *m, double l, unsigned f,
                            double *M)
{
    double M18[18][18];
    pkm_fem_quintic_mass(s, m, l, f, M18);
    twist_block(&M18[0][0], M);
}

static void cubic_floating_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                     double *K)
{
    pkm_fem_beam3d_floating_stiffness(s, m, l, (double(*)[6])K);
}

static void cubic_floating_mass(const pkm_section *s, const pkm_material *m, double l, unsigned f,
                                double *M)
{
    pkm_fem_beam3d_floating_mass(s, m, l, f, (double(*)[12])M);
}

static void screw_paper_stiffness(const pkm_section *s, const pkm_material *m, double l, double *K)
{
    pkm_fem_screw_paper_stiffness(s, m, l, (double(*)[6])K);
}

static void screw_paper_mass(const pkm_section *s, const pkm_material *m, double l, unsigned f,
                             double *M)
{
    pkm_fem_screw_paper_mass(s, m, l, f, (double(*)[6])M);
}

static void screw_stiffness(const pkm_section *s, const pkm_material *m, double l, double *K)
{
    pkm_fem_screw_consistent_stiffness(s, m, l, (double(*)[8])K);
}

static void screw_mass(const pkm_section *s, const pkm_material *m, double l, unsigned f, double *M)
{
    pkm_fem_screw_consistent_mass(s, m, l, f, (double(*)[8])M);
}

static const pkm_dof_kind cubic_dofs[] = {PKM_DOF_U,  PKM_DOF_V,  PKM_DOF_W,
                                          PKM_DOF_RX, PKM_DOF_RY, PKM_DOF_RZ};
static const pkm_dof_kind quintic_dofs[] = {PKM_DOF_U,    PKM_DOF_V,    PKM_DOF_W,
                                            PKM_DOF_RX,   PKM_DOF_RY,   PKM_DOF_RZ,
                                            PKM_DOF_CURV, PKM_DOF_CURV, PKM_DOF_CURV};
static const pkm_dof_kind screw_paper_dofs[] = {PKM_DOF_U, PKM_DOF_W, PKM_DOF_SLOPE_W};
static const pkm_dof_kind screw_dofs[] = {PKM_DOF_U, PKM_DOF_W, PKM_DOF_SLOPE_W, PKM_DOF_CURV};

/* sqrt(1.2): the bubble 6 xi (1 - xi) kept in each element's curvature (pkm/fem.h) */
#define C0_RATIO 1.0954451150103321

/* Indexed by pkm_beam_element (model.h) for the entries a model's beam body can name. */
const pkm_beam_type pkm_beam_types[] = {
    {"cubic", 6, cubic_dofs, 1.0, cubic_stiffness, cubic_mass, cubic_floating_stiffness,
     cubic_floating_mass},
    {"quintic", 9, quintic_dofs, 1.0, quintic_stiffness, quintic_mass, NULL, NULL},
    {"quintic_c0", 6, cubic_dofs, C0_RATIO, quintic_c0_stiffness, quintic_c0_mass, NULL, NULL},
    {"screw_paper", 3, screw_paper_dofs, C0_RATIO, screw_paper_stiffness, screw_paper_mass, NULL,
     NULL},
    {"screw", 4, screw_dofs, 1.0, screw_stiffness, screw_mass, NULL, NULL},
};

const int pkm_beam_type_count = (int)(sizeof(pkm_beam_types) / sizeof(pkm_beam_types[0]));

const pkm_beam_type *pkm_beam_type_find(const char *name)
{
    for (int i = 0; i < pkm_beam_type_count; i++)
        if (strcmp(pkm_beam_types[i].name, name) == 0) return &pkm_beam_types[i];
    return NULL;
}

int pkm_beam_type_spatial(const pkm_beam_type *b)
{
    if (b->dofs_per_node < 6 || b->dofs_per_node > PKM_BEAM_MAX_NODE_DOFS) return 0;
    for (int i = 0; i < b->dofs_per_node; i++)
        if (b->dofs[i] != (i < 6 ? cubic_dofs[i] : PKM_DOF_CURV)) return 0;
    return 1;
}
