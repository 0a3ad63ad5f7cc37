/* solvers/newmark.c: Newmark and HHT-alpha steps over pkm_linsolve, Rayleigh damping.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pkm/newmark.h"
#include "pkm/linsolve.h"
#include "core/core_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct pkm_newmark {
    pkm_newmark_opts o;
    const pkm_pencil *p; /* the current pencil (borrowed) */
    pkm_linsolve *ls;    /* K_eff on p's pattern */
    int symbolic;        /* symbolic analyses done */
    int64_t n, steps;
    double t;
    double cK, cM;         /* K_eff = cK K + cM M */
    double *u, *v, *a, *f; /* state; the load at t where HHT or the energies need it */
    double *rhs, *w1, *w2, *tmp;
    pkm_newmark_energy e;
};

/* Coefficients of the displacement-increment form (Hughes, The Finite Element Method, sec.
 * 9.1.2, rewritten for the increment du = u_{n+1} - u_n): a_{n+1} = a0 du - a2 v_n - a3 a_n,
 * v_{n+1} = a1 du - a4 v_n - a5 a_n. */
typedef struct coeffs {
    double a0, a1, a2, a3, a4, a5;
} coeffs;

static coeffs coeffs_of(const pkm_newmark_opts *o)
{
    const double b = o->beta, g = o->gamma, dt = o->dt;
    return (coeffs){1.0 / (b * dt * dt), g / (b * dt), 1.0 / (b * dt),
                    0.5 / b - 1.0,       g / b - 1.0,  dt * (0.5 * g / b - 1.0)};
}

pkm_newmark_opts pkm_newmark_opts_default(double dt)
{
    return (pkm_newmark_opts){.dt = dt, .beta = 0.25, .gamma = 0.5, .alpha = 0.0};
}

pkm_newmark_opts pkm_newmark_opts_hht(double dt, double alpha)
{
    return (pkm_newmark_opts){.dt = dt,
                              .beta = 0.25 * (1.0 - alpha) * (1.0 - alpha),
                              .gamma = 0.5 - alpha,
                              .alpha = alpha};
}

pkm_status pkm_rayleigh_from_ratios(double zeta1, double f1, double zeta2, double f2, double *l1,
                                    double *l2, pkm_ctx *ctx)
{
    if (!(isfinite(f1) && f1 > 0.0) || !(isfinite(f2) && f2 > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "damping frequencies must be positive and finite (got %g Hz, %g Hz)", f1,
                        f2);
    if (f1 == f2)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "damping frequencies are equal (%g Hz)", f1);
    if (!(isfinite(zeta1) && zeta1 >= 0.0) || !(isfinite(zeta2) && zeta2 >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "damping ratios must be non-negative and finite (got %g, %g)", zeta1,
                        zeta2);
    const double w1 = 2.0 * PKM_PI * f1, w2 = 2.0 * PKM_PI * f2, d = w2 * w2 - w1 * w1;
    const double c1 = 2.0 * w1 * w2 * (zeta1 * w2 - zeta2 * w1) / d;
    const double c2 = 2.0 * (zeta2 * w2 - zeta1 * w1) / d;
    if (c1 < 0.0 || c2 < 0.0)
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "damping ratios %g at %g Hz and %g at %g Hz give a negative Rayleigh "
                        "coefficient (l1 = %g 1/s, l2 = %g s)",
                        zeta1, f1, zeta2, f2, c1, c2);
    *l1 = c1;
    *l2 = c2;
    return PKM_OK;
}

static pkm_status check_opts(const pkm_newmark_opts *o, pkm_ctx *ctx)
{
    if (!(isfinite(o->dt) && o->dt > 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "time step dt = %g s must be positive", o->dt);
    if (!(isfinite(o->beta) && o->beta > 0.0 && o->beta <= 1.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "Newmark beta = %g outside (0, 1]", o->beta);
    if (!(isfinite(o->gamma) && o->gamma >= 0.5 && o->gamma <= 1.5))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "Newmark gamma = %g outside [1/2, 3/2]", o->gamma);
    /* HHT's stability and accuracy analysis covers -1/3 <= alpha <= 0 (Hughes, sec. 9.3). */
    if (!(o->alpha >= -1.0 / 3.0 && o->alpha <= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "HHT alpha = %g outside [-1/3, 0]", o->alpha);
    if (!(isfinite(o->l1) && o->l1 >= 0.0) || !(isfinite(o->l2) && o->l2 >= 0.0))
        return PKM_FAIL(ctx, PKM_ERR_INVALID,
                        "Rayleigh coefficients l1 = %g 1/s, l2 = %g s must be non-negative", o->l1,
                        o->l2);
    return PKM_OK;
}

/* Numeric factorisation of K_eff = (1+alpha) (1 + a1 l2) K + (a0 + (1+alpha) a1 l1) M, after a
 * new symbolic analysis when p's pattern is not the analysed one. */
static pkm_status factor_effective(pkm_newmark *nm, const pkm_pencil *p, pkm_ctx *ctx)
{
    if (nm->ls == NULL || pkm_linsolve_check_pattern(nm->ls, p, NULL) != PKM_OK) {
        pkm_linsolve_destroy(&nm->ls);
        pkm_status rc = pkm_linsolve_create(p, PKM_LINSOLVE_AUTO, &nm->ls, ctx);
        if (rc != PKM_OK) return rc;
        nm->symbolic++;
    }
    const coeffs c = coeffs_of(&nm->o);
    const double ap = 1.0 + nm->o.alpha;
    const double cK = ap * (1.0 + c.a1 * nm->o.l2), cM = c.a0 + ap * c.a1 * nm->o.l1;
    int64_t minor = -1;
    pkm_status rc = pkm_linsolve_factor(nm->ls, p, cK, cM, &minor, ctx);
    if (rc != PKM_OK) return rc;
    if (minor >= 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "effective stiffness %g K + %g M is not positive definite (column %lld)",
                        cK, cM, (long long)minor);
    rc = pkm_linsolve_set_operator(nm->ls, p, 0.0, 1.0, ctx);
    if (rc != PKM_OK) return rc;
    nm->p = p;
    nm->cK = cK;
    nm->cM = cM;
    return PKM_OK;
}

pkm_status pkm_newmark_create(const pkm_pencil *p, const pkm_newmark_opts *opts, pkm_newmark **out,
                              pkm_ctx *ctx)
{
    *out = NULL;
    pkm_status rc = check_opts(opts, ctx);
    if (rc != PKM_OK) return rc;
    if (p == NULL || p->n < 1)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "Newmark integration needs a pencil of order >= 1");
    pkm_newmark *nm = calloc(1, sizeof(*nm));
    if (nm == NULL) return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate a Newmark integrator");
    nm->o = *opts;
    nm->n = p->n;
    double **arr[] = {&nm->u, &nm->v, &nm->a, &nm->f, &nm->rhs, &nm->w1, &nm->w2, &nm->tmp};
    for (size_t i = 0; i < sizeof(arr) / sizeof(arr[0]); i++) {
        *arr[i] = calloc((size_t)p->n, sizeof(double));
        if (*arr[i] == NULL) {
            pkm_newmark_destroy(&nm);
            return PKM_FAIL(ctx, PKM_ERR_NOMEM, "cannot allocate Newmark vectors of order %lld",
                            (long long)p->n);
        }
    }
    rc = factor_effective(nm, p, ctx);
    if (rc != PKM_OK) {
        pkm_newmark_destroy(&nm);
        return rc;
    }
    *out = nm;
    return PKM_OK;
}

void pkm_newmark_destroy(pkm_newmark **nm)
{
    if (nm == NULL || *nm == NULL) return;
    pkm_newmark *s = *nm;
    pkm_linsolve_destroy(&s->ls);
    free(s->u);
    free(s->v);
    free(s->a);
    free(s->f);
    free(s->rhs);
    free(s->w1);
    free(s->w2);
    free(s->tmp);
    free(s);
    *nm = NULL;
}

pkm_status pkm_newmark_set_pencil(pkm_newmark *nm, const pkm_pencil *p, pkm_ctx *ctx)
{
    if (p == NULL || p->n != nm->n)
        return PKM_FAIL(ctx, PKM_ERR_INVALID, "new pencil of order %lld, integrator of order %lld",
                        p == NULL ? -1LL : (long long)p->n, (long long)nm->n);
    return factor_effective(nm, p, ctx);
}

static double dot(const double *x, const double *y, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* y = C x = l1 M x + l2 K x; work: n. */
static void damping_matvec(const pkm_newmark *nm, const double *x, double *y, double *work)
{
    pkm_pencil_matvec(nm->p, 'M', x, y);
    pkm_pencil_matvec(nm->p, 'K', x, work);
    for (int64_t i = 0; i < nm->n; i++)
        y[i] = nm->o.l1 * y[i] + nm->o.l2 * work[i];
}

/* Kinetic and strain energy of the state with the current pencil; work: n. */
static void state_energies(pkm_newmark *nm, double *work)
{
    pkm_pencil_matvec(nm->p, 'M', nm->v, work);
    nm->e.kinetic = 0.5 * dot(nm->v, work, nm->n);
    pkm_pencil_matvec(nm->p, 'K', nm->u, work);
    nm->e.strain = 0.5 * dot(nm->u, work, nm->n);
}

pkm_status pkm_newmark_start(pkm_newmark *nm, const double *u0, const double *v0, const double *f0,
                             pkm_ctx *ctx)
{
    const int64_t n = nm->n;
    const size_t bytes = (size_t)n * sizeof(double);
    if (u0 != NULL)
        memcpy(nm->u, u0, bytes);
    else
        memset(nm->u, 0, bytes);
    if (v0 != NULL)
        memcpy(nm->v, v0, bytes);
    else
        memset(nm->v, 0, bytes);
    if (f0 != NULL)
        memcpy(nm->f, f0, bytes);
    else
        memset(nm->f, 0, bytes);
    /* M a0 = f0 - C v0 - K u0: M is factorised on the same symbolic analysis, then K_eff again. */
    damping_matvec(nm, nm->v, nm->rhs, nm->tmp);
    pkm_pencil_matvec(nm->p, 'K', nm->u, nm->tmp);
    for (int64_t i = 0; i < n; i++)
        nm->rhs[i] = nm->f[i] - nm->rhs[i] - nm->tmp[i];
    int64_t minor = -1;
    pkm_status rc = pkm_linsolve_factor(nm->ls, nm->p, 0.0, 1.0, &minor, ctx);
    if (rc != PKM_OK) return rc;
    if (minor >= 0)
        return PKM_FAIL(ctx, PKM_ERR_SINGULAR,
                        "mass matrix is not positive definite (column %lld): no initial "
                        "acceleration",
                        (long long)minor);
    rc = pkm_linsolve_solve(nm->ls, nm->rhs, nm->a, ctx);
    if (rc != PKM_OK) return rc;
    rc = factor_effective(nm, nm->p, ctx);
    if (rc != PKM_OK) return rc;
    nm->t = 0.0;
    nm->steps = 0;
    memset(&nm->e, 0, sizeof(nm->e));
    state_energies(nm, nm->tmp);
    return PKM_OK;
}

PKM_TARGET_CLONES pkm_status pkm_newmark_step(pkm_newmark *nm, const double *f1, pkm_ctx *ctx)
{
    const int64_t n = nm->n;
    const coeffs c = coeffs_of(&nm->o);
    const double al = nm->o.alpha, ap = 1.0 + al;
    /* K_eff du = (1+alpha) f1 - alpha f_n - K u_n + M w1 + C w2 with w1 = a2 v + a3 a and w2 =
     * (1+alpha) (a4 v + a5 a) + alpha v: the HHT equation with a_{n+1} and v_{n+1} written
     * through du; = M (w1 + l1 w2) + K z with z = l2 w2 - u. K_eff = cK K + cM M turns K z into
     * (K_eff z - cM M z) / cK, so du = K_eff^-1 (load + M (w1 + l1 w2 - (cM / cK) z)) + z / cK:
     * one product with M where there were products with M and K (NaVARo at 16 elements per
     * link: 11.1 -> 7.0 us a step). z / cK is about -u, so du, the difference of two terms of
     * the size of u, carries an error of the rounding of u (the size of the rounding of u + du
     * itself): the velocity and acceleration, a1 du and a0 du, then carry one of about eps |u| /
     * dt and eps |u| / dt^2, far below the dynamics for any time step that resolves them. The
     * state's arrays are distinct buffers of the integrator (restrict). */
    double *restrict v = nm->v, *restrict a = nm->a, *restrict u = nm->u;
    double *restrict op_m = nm->tmp, *restrict rhs = nm->rhs;
    const double *restrict fn = nm->f;
    const double l1 = nm->o.l1, l2 = nm->o.l2, r = nm->cM / nm->cK, ik = 1.0 / nm->cK;
    /* w2 = g1 v + g2 a; op_m = p1 v + p2 a + r u; z / cK = q1 v + q2 a - u / cK: the
     * coefficients gathered once, the loops left with the products by the state. */
    const double g1 = ap * c.a4 + al, g2 = ap * c.a5, lr = l1 - r * l2;
    const double p1 = c.a2 + lr * g1, p2 = c.a3 + lr * g2, q1 = ik * l2 * g1, q2 = ik * l2 * g2;
    for (int64_t i = 0; i < n; i++)
        op_m[i] = p1 * v[i] + p2 * a[i] + r * u[i];
    if (al != 0.0)
        for (int64_t i = 0; i < n; i++)
            rhs[i] = ap * f1[i] - al * fn[i];
    else
        memcpy(rhs, f1, (size_t)n * sizeof(double));
    pkm_linsolve_apply_add(nm->ls, op_m, rhs);
    pkm_status rc = pkm_linsolve_solve(nm->ls, nm->rhs, nm->rhs, ctx);
    if (rc != PKM_OK) return rc;
    /* rhs + z / cK is du (stored back into rhs); tmp keeps v_n and f keeps f_n for the step's
     * energy increments. */
    double *restrict du = nm->rhs;
    double *v_old = nm->tmp;
    if (!nm->o.no_energy) memcpy(v_old, nm->v, (size_t)n * sizeof(double));
    for (int64_t i = 0; i < n; i++) {
        const double d = du[i] + q1 * v[i] + q2 * a[i] - ik * u[i];
        const double a1 = c.a0 * d - c.a2 * v[i] - c.a3 * a[i];
        v[i] = c.a1 * d - c.a4 * v[i] - c.a5 * a[i];
        a[i] = a1;
        u[i] += d;
        du[i] = d;
    }
    /* The trapezoidal energy increments: work du^T fm and dissipation dt vm^T C vm, with vm, fm
     * the means of the step's end values (for beta = 1/4, gamma = 1/2 the mean of the equation of
     * motion at both ends, dotted with du = dt vm, is exactly this balance). */
    if (!nm->o.no_energy) {
        for (int64_t i = 0; i < n; i++) {
            const double vm = 0.5 * (v_old[i] + nm->v[i]), fm = 0.5 * (nm->f[i] + f1[i]);
            nm->e.work += du[i] * fm;
            nm->w1[i] = vm;
        }
        damping_matvec(nm, nm->w1, nm->w2, nm->tmp);
        nm->e.dissipated += nm->o.dt * dot(nm->w1, nm->w2, n);
        state_energies(nm, nm->tmp);
    }
    if (al != 0.0 || !nm->o.no_energy) memcpy(nm->f, f1, (size_t)n * sizeof(double));
    nm->steps++;
    nm->t = (double)nm->steps * nm->o.dt;
    return PKM_OK;
}

int64_t pkm_newmark_order(const pkm_newmark *nm)
{
    return nm->n;
}
double pkm_newmark_time(const pkm_newmark *nm)
{
    return nm->t;
}
int64_t pkm_newmark_steps(const pkm_newmark *nm)
{
    return nm->steps;
}
const double *pkm_newmark_u(const pkm_newmark *nm)
{
    return nm->u;
}
const double *pkm_newmark_v(const pkm_newmark *nm)
{
    return nm->v;
}
const double *pkm_newmark_a(const pkm_newmark *nm)
{
    return nm->a;
}
pkm_newmark_energy pkm_newmark_energies(const pkm_newmark *nm)
{
    return nm->e;
}
int pkm_newmark_symbolic_count(const pkm_newmark *nm)
{
    return nm->symbolic;
}
