/* include/pkm/fem.h: element kernels. Pure functions over fixed-size arrays, SI units.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The 3D Euler-Bernoulli beam of Germain et al. 2015, sec. 2.4, in two equivalent forms:
 *  - nodal form: dofs (u, v, w, rx, ry, rz) at node 1 then node 2, in the element's local axes
 *    (x along the beam from node 1 to node 2), used by the direct finite-element assembly;
 *  - floating-frame form (Germain et al. 2015, eqs. 23-27): the 6 rigid velocities (v, w) of the
 *    frame attached at node 1 followed by the 6 elastic coordinates of node 2 relative to that
 *    frame (the end displacement and rotation of a beam clamped at node 1), used by the
 *    virtual-tree (leg-variable Jacobian) assembly.
 * Both forms describe the same energies: the floating-frame matrices equal T^T K T and T^T M T
 * of the nodal ones for the rigid-frame map T (tested). */
#ifndef PKM_FEM_H
#define PKM_FEM_H

#include "pkm/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Beam cross-section, local axes: x along the beam, y and z the principal axes of the section. */
typedef struct pkm_section {
    double A;  /* area, m^2 */
    double Iy; /* second moment of area about local y (governs bending in the x-z plane), m^4 */
    double Iz; /* second moment of area about local z (governs bending in the x-y plane), m^4 */
    double I0; /* torsion constant (stiffness G*I0), m^4 */
    double Ip; /* polar moment of area for torsional inertia (rho*Ip*l), usually Iy + Iz, m^4 */
} pkm_section;

typedef struct pkm_material {
    double E;   /* Young's modulus, Pa */
    double G;   /* shear modulus, Pa */
    double rho; /* density, kg/m^3 */
} pkm_material;

/* Options of the beam mass kernels. */
enum {
    PKM_FEM_ROTARY_INERTIA = 1 /* include the section rotary inertia rho*Iy, rho*Iz in bending */
};

/* Check that every section and material property is finite and > 0. On failure records a
 * message naming `what` (e.g. "link 5i") and the offending property. */
pkm_status pkm_fem_props_check(const pkm_section *s, const pkm_material *m, const char *what,
                               pkm_ctx *ctx);

/* Nodal 12x12 stiffness of a 3D Euler-Bernoulli beam of length l in local axes. */
void pkm_fem_beam3d_stiffness(const pkm_section *s, const pkm_material *m, double l,
                              double K[12][12]);

/* Nodal 12x12 consistent mass (cubic Hermite bending, linear axial and torsion, torsional
 * inertia rho*Ip*l) in local axes; flags: PKM_FEM_ROTARY_INERTIA or 0. */
void pkm_fem_beam3d_mass(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                         double M[12][12]);

/* Floating-frame stiffness of the elastic coordinates (Germain et al. 2015, eq. 23). */
void pkm_fem_beam3d_floating_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                       double K[6][6]);

/* Floating-frame 12x12 mass on (frame velocity, frame angular velocity, elastic velocities), all
 * in local axes, frame origin at node 1 (Germain et al. 2015, eqs. 8, 16-17, 24-27). */
void pkm_fem_beam3d_floating_mass(const pkm_section *s, const pkm_material *m, double l,
                                  unsigned flags, double M[12][12]);

/* Local frame of a beam from xa to xb: rows of R are the local x, y, z axes in global
 * coordinates; local x = (xb - xa)/l, local z is zref made orthogonal to x, y = z cross x.
 * Fails (PKM_ERR_MODEL) if l is zero or zref is (nearly) parallel to the beam. */
pkm_status pkm_fem_beam3d_frame(const double xa[3], const double xb[3], const double zref[3],
                                double R[3][3], double *l, pkm_ctx *ctx);

/* Global 12x12 matrix G = T^T L T, T = blockdiag(R, R, R, R), for a local 12x12 matrix L; R and
 * L are only read (not const-qualified because C11 does not convert double (*)[n] to
 * const double (*)[n]); G may alias L. */
void pkm_fem_rotate12(double R[3][3], double L[12][12], double G[12][12]);

/* Quintic-Hermite spatial beam (Li et al. 2020, eqs. 1-7), local axes as the nodal 3D beam above.
 * 18 dofs: per node (u, v, w, rx, ry, rz, kx, ky, kz), node 1 then node 2, where rz = v',
 * ry = -w' (as in pkm_fem_beam3d_stiffness) and (kx, ky, kz) = d(rx, ry, rz)/dx = (phi', -w'',
 * v'') is the curvature vector: the twist rate and the two bending curvatures. Lateral v, w are
 * quintic Hermite (value, slope, curvature), axial u linear, twist phi = rx cubic Hermite (phi,
 * phi'). Stiffness EA, EIz (v), EIy (w), G*I0; mass rho*A on the displacements, rho*Ip on the
 * twist, with PKM_FEM_ROTARY_INERTIA also rho*Iz v'^2 + rho*Iy w'^2. Integrated exactly. */
void pkm_fem_quintic_stiffness(const pkm_section *s, const pkm_material *m, double l,
                               double K[18][18]);
void pkm_fem_quintic_mass(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                          double M[18][18]);

/* The displacement and rotation (u, v, w, rx, ry, rz, local axes) at xi = x/l in [0, 1] of the
 * quintic beam whose 18 local dofs are ul, by its own shape functions (Li et al. 2020, eq. 2):
 * what a mode shape looks like inside the element. */
void pkm_fem_quintic_interpolate(const double ul[18], double l, double xi, double d[6]);

/* Global 18x18 matrix G = T^T L T, T = blockdiag(R, R, I, R, R, I): the translation and rotation
 * triples go to global axes, the curvature triples stay in the element's local axes. Curvature
 * coordinates are shared only between elements of one straight segment, which all have the same
 * local frame, so local components serve as common coordinates there and no rotation is needed;
 * at a kink the curvature is not continuous (the bending moment of one segment becomes partly
 * torsion of the next) and each segment keeps its own. R, L only read; G may alias L. */
void pkm_fem_quintic_rotate(double R[3][3], double L[18][18], double G[18][18]);

/* Planar lead-screw beam of Li et al. 2020, eqs. 12-17: axial u linear, lateral deflection w
 * along the section's local z axis (bending stiffness E*Iy) with theta = dw/dx, the slope (the
 * sign of eq. 15, opposite to beam3d's ry). Mass rho*A (u^2 + w^2), with PKM_FEM_ROTARY_INERTIA
 * also rho*Iy w'^2; stiffness EA u'^2 + EIy w''^2.
 *  - paper: eq. 15 as printed, lateral shapes n1, n2, n4, n5 of the quintic only, dofs (u, w,
 *    theta) per node: the curvature is forced to zero at every node, so a refined mesh converges
 *    to frequencies about sqrt(1.2) - 1 = 9.5 % too high (each element keeps a bubble
 *    6 xi (1 - xi) in its curvature, whose mean square is 1.2 times that of a constant);
 *  - consistent: the full quintic, dofs (u, w, theta, kappa = w'') per node; converges.
 * The slider's lumped mass and the lead coupling dS = u + p/(2 pi) phi of eq. 26 belong to the
 * model: a helical joint (PKM_JOINT_HELICAL, pitch p) between the screw and the nut. */
void pkm_fem_screw_paper_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                   double K[6][6]);
void pkm_fem_screw_paper_mass(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                              double M[6][6]);
void pkm_fem_screw_consistent_stiffness(const pkm_section *s, const pkm_material *m, double l,
                                        double K[8][8]);
void pkm_fem_screw_consistent_mass(const pkm_section *s, const pkm_material *m, double l,
                                   unsigned flags, double M[8][8]);

/* What a beam element's local dof at a node is, in the local axes above: a translation or a
 * rotation, the slope +dw/dx of the lead-screw elements (whose sign is opposite to ry's), or a
 * curvature-type coordinate (zero in every rigid motion). */
typedef enum pkm_dof_kind {
    PKM_DOF_U,
    PKM_DOF_V,
    PKM_DOF_W,
    PKM_DOF_RX,
    PKM_DOF_RY,
    PKM_DOF_RZ,
    PKM_DOF_SLOPE_W,
    PKM_DOF_CURV
} pkm_dof_kind;

/* A beam element type (a GSL-style const type table): its local dofs, node 1 then node 2, and
 * its kernels on ndof x ndof row-major arrays, ndof = 2 dofs_per_node. freq_ratio is the ratio
 * of its converged frequencies to beam theory's: 1, or sqrt(1.2) for the lead-screw elements as
 * printed. Every entry passes the conformance battery of tests/test_fem_elements.c.
 *
 * A model's beam body names its element by index into this table (pkm_beam_element, model.h)
 * and the assembly reads the entry: the spatial entries (pkm_beam_type_spatial) serve a 3D beam
 * body in the nodal formulation, their twist dofs rotated to global axes and their curvature
 * dofs, in local axes, numbered per straight segment (assembly/nodal.c); the virtual tree takes
 * the entries with floating-frame kernels (Germain et al. 2015, eqs. 23-27: the 6 x 6 elastic
 * stiffness and the 12 x 12 mass of the nodal form's T^T K T, T^T M T), NULL for the others.
 * A new element is one more entry. */
typedef struct pkm_beam_type {
    const char *name;
    int dofs_per_node;
    const pkm_dof_kind *dofs; /* dofs_per_node kinds */
    double freq_ratio;
    void (*stiffness)(const pkm_section *s, const pkm_material *m, double l, double *K);
    void (*mass)(const pkm_section *s, const pkm_material *m, double l, unsigned flags, double *M);
    void (*floating_stiffness)(const pkm_section *s, const pkm_material *m, double l, double *K6);
    void (*floating_mass)(const pkm_section *s, const pkm_material *m, double l, unsigned flags,
                          double *M12);
} pkm_beam_type;

/* The most dofs per node of an entry (the quintic's 9): the size of the assembly's buffers. */
#define PKM_BEAM_MAX_NODE_DOFS 9

extern const pkm_beam_type pkm_beam_types[];
extern const int pkm_beam_type_count;

/* The entry of that name, or NULL. */
const pkm_beam_type *pkm_beam_type_find(const char *name);

/* Whether the entry serves a 3D beam body: its dofs per node are a node's twist (u, v, w, rx,
 * ry, rz), then curvature-type coordinates only (the planar lead-screw elements are not). */
int pkm_beam_type_spatial(const pkm_beam_type *b);

#ifdef __cplusplus
}
#endif
#endif
