/* cli/map.c: pkmflex map: a frequency map over a grid of poses, to an HDF5 file, with
 * checkpoints, resume, a lock on the output and a progress bar.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#define _DEFAULT_SOURCE /* flock */

#include "cli/cli.h"

#include "pkm/io.h"
#include "pkm/map.h"
#include "pkm/motion.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum {
    MAP_GRID = CLI_OPT_OWN,
    MAP_OUTPUT,
    MAP_THREADS,
    MAP_STALL,
    MAP_MODES,
    MAP_MAC_THRESHOLD,
    MAP_CLUSTER_TOL,
    MAP_CHECKPOINT,
    MAP_RESUME,
    MAP_QUIET,
    MAP_VTK,
    MAP_FORMAT
};

typedef struct map_args {
    cli_case_args c;
    const char *grid;
    const char *output;
    const char *vtk; /* --vtk FILE.vtkhdf, or NULL */
    int quiet;
    int csv; /* --format csv|json: the summary as two tables */
    int modes;
    int resume;
    double checkpoint_s;
    double stall_s;
    double mac_threshold;
    double cluster_tol;
    int threads;
    int argc; /* the command line, for the resume hint after Ctrl-C */
    char **argv;
} map_args;

static const cli_option map_options[] = {
    {"--grid", NULL, 1, MAP_GRID, "SPEC",
     "e.g. x=-0.1:0.1:21,y=-0.1:0.1:21 (COUNT points, ends included)", NULL},
    {"--pose", NULL, 1, CLI_OPT_POSE, "P1,P2,...",
     "base pose for the coordinates not swept (default: home)", NULL},
    {"--output", "-o", 1, MAP_OUTPUT, "FILE.h5", "output file", NULL},
    {"--threads", NULL, 1, MAP_THREADS, "T",
     "worker processes (default 1); a worker without a result\n"
     "for --stall-timeout seconds stops the map with exit 3",
     NULL},
    {"--stall-timeout", NULL, 1, MAP_STALL, "S",
     "seconds without a result after which a worker counts as\n"
     "stalled (default: 100 times the slowest pose, at least 600 s)",
     NULL},
    {"--modes", NULL, 0, MAP_MODES, NULL,
     "also store the mode shapes (/modes), whatever their size", NULL},
    {"--mac-threshold", NULL, 1, MAP_MAC_THRESHOLD, "X",
     "links with a MAC below X are flagged (default 0.8)", NULL},
    {"--cluster-tol", NULL, 1, MAP_CLUSTER_TOL, "X",
     "relative frequency gap below which modes form one subspace\n"
     "(default 1e-5)",
     NULL},
    {"--checkpoint", NULL, 1, MAP_CHECKPOINT, "S",
     "seconds between checkpoints to FILE.h5.partial (default 5,\n"
     "0 = none)",
     NULL},
    {"--resume", NULL, 0, MAP_RESUME, NULL,
     "continue FILE.h5.partial (same case, parameters, grid, nev\n"
     "and solver settings, else an error naming the difference)",
     NULL},
    {"--quiet", NULL, 0, MAP_QUIET, NULL, "no progress bar", NULL},
    {"--format", NULL, 1, MAP_FORMAT, "table|csv|json",
     "the summary's format; csv: case,poses,seconds,ok,unreachable,singular,failed,\n"
     "tracking,links,low_links,lowest_mac,solver_fallbacks,output (tracking mac or\n"
     "rank; the links empty without tracking; solver_fallbacks: poses the block\n"
     "solver handed to ARPACK), a blank line, then mode,f_min_hz,f_max_hz",
     NULL},
    {"--vtk", NULL, 1, MAP_VTK, "FILE.vtkhdf",
     "also write the map for ParaView (VTKHDF; as pkmflex export)", NULL},
};

static const cli_command map_command = {
    "map",
    "usage: pkmflex map CASE --grid AXIS=START:STOP:COUNT[,...] -o FILE.h5 [options]\n\n"
    "Natural frequencies over a regular grid of poses, written to an HDF5 file (layout in\n"
    "docs/hdf5-layout.md). Axes are pose coordinates of the case (navaro: x, y [m],\n"
    "theta [rad]); coordinates not named stay at their --pose value. Poses that are\n"
    "unreachable or singular, or where the solver fails, are recorded in /status with\n"
    "NaN frequencies and the sweep goes on. The file is written under a temporary name\n"
    "and renamed when complete.\n\n"
    "Modes are ranked by frequency at each pose and tracked across neighbouring poses by\n"
    "the modal assurance criterion (MAC), repeated frequencies as subspaces: /tracked_mode\n"
    "follows one physical mode through crossings, /tracking_mac flags uncertain links.\n"
    "Tracking keeps every pose's mode vectors (poses x nev x coordinates x 8 bytes); above\n"
    "1 GiB the ids are the ranks: a warning says so at the first pose, and the attribute\n"
    "tracking_note records it.\n\n"
    "While the sweep runs, FILE.h5.partial holds the results so far (a valid map file,\n"
    "status -1 where not computed); --resume continues it and removes it at the end.\n"
    "Ctrl-C stops the sweep, saves the poses done there and prints the command that\n"
    "resumes (exit 130).\n\n",
    map_options, (int)(sizeof(map_options) / sizeof(map_options[0])), 1};

static int map_set(void *user, int id, const char *v)
{
    map_args *o = user;
    switch (id) {
    case MAP_GRID:
        o->grid = v;
        return 0;
    case MAP_OUTPUT:
        o->output = v;
        return 0;
    case MAP_MODES:
        o->modes = 1;
        return 0;
    case MAP_RESUME:
        o->resume = 1;
        return 0;
    case MAP_VTK:
        o->vtk = v;
        return 0;
    case MAP_QUIET:
        o->quiet = 1;
        return 0;
    case MAP_FORMAT:
        if (cli_check_format(v) != 0) return EXIT_INPUT;
        o->csv = cli_format_is_rows(v);
        return 0;
    case MAP_CHECKPOINT:
        if (!cli_parse_real(v, 0.0, 1e9, &o->checkpoint_s))
            return cli_usage_error("--checkpoint '%s': expected seconds >= 0", v);
        return 0;
    case MAP_STALL:
        if (!cli_parse_real(v, 0.0, 1e9, &o->stall_s))
            return cli_usage_error("--stall-timeout '%s': expected seconds >= 0", v);
        return 0;
    case MAP_MAC_THRESHOLD:
        if (!cli_parse_real(v, 0.0, 1.0, &o->mac_threshold))
            return cli_usage_error("--mac-threshold '%s': expected a number from 0 to 1", v);
        return 0;
    case MAP_CLUSTER_TOL:
        if (!cli_parse_real(v, 0.0, 1.0, &o->cluster_tol))
            return cli_usage_error("--cluster-tol '%s': expected a number from 0 to 1", v);
        return 0;
    case MAP_THREADS:
        if (!cli_parse_int(v, 1, 256, &o->threads))
            return cli_usage_error("--threads '%s': expected an integer from 1 to 256", v);
        return 0;
    default:
        return cli_case_set(&o->c, id, v);
    }
}

/* Parse "x=-0.1:0.1:21,theta=0:1:5" into the map's axes. */
static int map_parse_grid(const char *spec, const pkm_case *c, pkm_map *map)
{
    const char *p = spec;
    map->naxes = 0;
    while (*p != '\0') {
        if (map->naxes == PKM_MAP_MAX_AXES)
            return cli_usage_error("--grid '%s': at most %d axes", spec, PKM_MAP_MAX_AXES);
        const char *eq = strchr(p, '=');
        if (eq == NULL) return cli_usage_error("--grid '%s': expected AXIS=START:STOP:COUNT", spec);
        const size_t len = (size_t)(eq - p);
        int idx = -1;
        for (int k = 0; k < c->npose; k++)
            if (strlen(c->pose_names[k]) == len && strncmp(p, c->pose_names[k], len) == 0) idx = k;
        if (idx < 0)
            return cli_usage_error("--grid: '%.*s' is not a pose coordinate of %s", (int)len, p,
                                   c->name);
        for (int a = 0; a < map->naxes; a++)
            if (map->axes[a].pose_index == idx)
                return cli_usage_error("--grid: axis '%s' given twice", c->pose_names[idx]);
        pkm_map_axis *ax = &map->axes[map->naxes];
        snprintf(ax->unit, sizeof(ax->unit), "%s", c->pose_units[idx]);
        /* START and STOP: quantities in the coordinate's unit or with their own ("-30 deg"). */
        const char *q = eq + 1, *colon = strchr(q, ':');
        if (colon == NULL || !cli_parse_quantity_span(q, (size_t)(colon - q), ax->unit, &ax->start))
            return cli_usage_error("--grid '%s': bad START for axis '%s'", spec,
                                   c->pose_names[idx]);
        q = colon + 1;
        colon = strchr(q, ':');
        if (colon == NULL || !cli_parse_quantity_span(q, (size_t)(colon - q), ax->unit, &ax->stop))
            return cli_usage_error("--grid '%s': bad STOP for axis '%s'", spec, c->pose_names[idx]);
        char *end = NULL;
        q = colon + 1;
        long n = strtol(q, &end, 10);
        if (end == q || (*end != ',' && *end != '\0') || n < 1 || n > 10000000)
            return cli_usage_error("--grid '%s': COUNT of axis '%s' must be an integer >= 1", spec,
                                   c->pose_names[idx]);
        ax->count = (int)n;
        ax->pose_index = idx;
        snprintf(ax->name, sizeof(ax->name), "%s", c->pose_names[idx]);
        map->naxes++;
        p = (*end == ',') ? end + 1 : end;
    }
    if (map->naxes == 0) return cli_usage_error("--grid '%s': no axis", spec);
    return 0;
}

/* What the sweep's callbacks need: the progress bar and the checkpoint file. */
typedef struct map_ui {
    cli_progress pg;
    int bar;
    const char *partial; /* FILE.h5.partial */
} map_ui;

static void map_sweep_progress(int64_t done, int64_t total, void *user)
{
    map_ui *ui = user;
    if (ui->bar) cli_progress_show(&ui->pg, done, total, "poses");
}

/* The library's notices (e.g. modes that will not be tracked) as warnings, at once. */
static void map_sweep_notice(const char *msg, void *user)
{
    (void)user;
    fprintf(stderr, "%s: warning: modes will not be tracked: %s\n", CLI_PROG, msg);
}

static int map_sweep_stop(int64_t point, void *user)
{
    (void)point;
    (void)user;
    return cli_interrupted();
}

static pkm_status map_sweep_checkpoint(const pkm_map *snap, void *user, pkm_ctx *ctx)
{
    const map_ui *ui = user;
    return pkm_map_write_h5(snap, ui->partial, ctx);
}

/* The map's settings from the command line: grid, base pose, case parameters, solver and
 * tracking settings; 0 or an exit status. */
static int map_setup(const map_args *o, const pkm_case *c, const void *params, pkm_map *map)
{
    pkm_map_init(map);
    int rc = map_parse_grid(o->grid, c, map);
    if (rc != 0) return rc;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_map_set_case(
        map, c, params, cli_is_case_file(o->c.case_name) ? o->c.case_name : NULL, &ctx);
    if (st != PKM_OK) return cli_report(st, &ctx);
    map->npose = c->npose;
    for (int k = 0; k < c->npose; k++)
        snprintf(map->pose_names[k], sizeof(map->pose_names[k]), "%s", c->pose_names[k]);
    memcpy(map->base_pose, c->home, sizeof(double) * (size_t)c->npose);
    if (o->c.pose_text != NULL &&
        !cli_parse_pose(o->c.pose_text, c->npose, c->pose_units, map->base_pose))
        return cli_usage_error("--pose '%s': expected %d comma-separated numbers", o->c.pose_text,
                               c->npose);
    size_t len = 0;
    for (int i = 0; i < o->c.nsets; i++) {
        len += (size_t)snprintf(map->case_params + len, sizeof(map->case_params) - len, "%s%s",
                                i > 0 ? ";" : "", o->c.sets[i]);
        if (len >= sizeof(map->case_params))
            return cli_usage_error("--set: the parameters take more than %zu characters",
                                   sizeof(map->case_params) - 1);
    }
    map->nev = o->c.nev;
    map->formulation = o->c.form;
    map->eigensolver = o->c.eig;
    map->opts.nev = o->c.nev;
    map->track.mac_threshold = o->mac_threshold;
    map->track.cluster_tol = o->cluster_tol;
    return 0;
}

/* An exclusive lock on F.h5.lock for the whole run, so that two runs on one -o cannot remove
 * each other's temporary files or checkpoint. The lock file holds the owner's pid; it is removed
 * by its owner at the end, and a run that locked a file just removed tries again. *fd: the
 * open lock (inherited by the workers), or -1 with an exit status returned. */
static int map_take_lock(const char *lock, int *fd)
{
    for (int attempt = 0; attempt < 10; attempt++) {
        *fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (*fd < 0) {
            fprintf(stderr, "%s: error: -o: cannot create the lock file %s: %s\n", CLI_PROG, lock,
                    strerror(errno));
            return EXIT_INPUT;
        }
        if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
            char pid[32] = "";
            const ssize_t n = read(*fd, pid, sizeof(pid) - 1);
            pid[n > 0 ? n : 0] = '\0';
            pid[strcspn(pid, "\n")] = '\0';
            fprintf(stderr,
                    "%s: error: -o: another pkmflex (pid %s) is writing this map: %s is locked\n",
                    CLI_PROG, pid[0] ? pid : "unknown", lock);
            close(*fd);
            *fd = -1;
            return EXIT_INPUT;
        }
        struct stat a, b;
        if (fstat(*fd, &a) == 0 && stat(lock, &b) == 0 && a.st_ino == b.st_ino &&
            a.st_dev == b.st_dev) {
            char pid[32];
            const int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
            if (ftruncate(*fd, 0) != 0 || write(*fd, pid, (size_t)n) != n) {
                /* the pid is for the message of a second run only */
            }
            return 0;
        }
        close(*fd); /* the previous owner removed it between our open and flock */
    }
    fprintf(stderr, "%s: error: -o: cannot lock %s\n", CLI_PROG, lock);
    *fd = -1;
    return EXIT_INPUT;
}

static void map_release_lock(const char *lock, int fd)
{
    if (fd < 0) return;
    unlink(lock);
    close(fd);
}

/* Refuse (exit 2) a map whose arrays cannot fit in the free memory or whose file and checkpoint
 * cannot fit on the output's file system, naming the sizes and what to change. */
static int map_check_resources(const pkm_map *map, const map_args *o)
{
    const pkm_map_needs need = pkm_map_estimate(map, o->threads);
    const double gib = 1073741824.0, mem = pkm_map_memory_free();
    double np = 1.0;
    for (int a = 0; a < map->naxes; a++)
        np *= map->axes[a].count;
    if (!o->quiet && isatty(STDERR_FILENO)) /* beside the progress bar */
        fprintf(stderr,
                "%s: map of %.0f poses x %d modes: %.3g GiB of memory, %.3g GiB of disk (and the "
                "mode vectors, known at the first pose)\n",
                CLI_PROG, np, map->nev, need.memory / gib, need.disk / gib);
    if (mem > 0.0 && need.memory > mem) {
        fprintf(stderr,
                "%s: error: --grid: the map needs %.3g GiB of memory, %.3g GiB is free: fewer "
                "grid points or modes (--grid COUNT, --nev)\n",
                CLI_PROG, need.memory / gib, mem / gib);
        return EXIT_INPUT;
    }
    char dir[4096];
    snprintf(dir, sizeof(dir), "%s", o->output);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        slash[slash == dir ? 1 : 0] = '\0';
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0) {
        const double disk = (double)vfs.f_bavail * (double)vfs.f_frsize;
        if (need.disk > disk) {
            fprintf(stderr,
                    "%s: error: -o: the map and its checkpoint need %.3g GiB of disk, %.3g GiB "
                    "is free in %s: fewer grid points or modes (--grid COUNT, --nev), or "
                    "another -o\n",
                    CLI_PROG, need.disk / gib, disk / gib, dir);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* --resume: *map becomes the checkpoint, which must continue the computation map describes. */
static int map_resume_from(const char *partial, pkm_map *map)
{
    pkm_map prev;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    if (access(partial, F_OK) != 0) {
        fprintf(stderr, "%s: error: --resume: no checkpoint %s to continue\n", CLI_PROG, partial);
        return EXIT_INPUT;
    }
    pkm_status st = pkm_map_read_h5_isolated(partial, 0.0, &prev, &ctx);
    if (st != PKM_OK) {
        fprintf(stderr, "%s: error: --resume: %s\n", CLI_PROG, ctx.msg);
        return EXIT_INPUT;
    }
    if (pkm_map_same_setup(&prev, map, &ctx) != PKM_OK) {
        fprintf(stderr,
                "%s: error: --resume: %s is another computation: %s (checkpoint against this "
                "command)\n",
                CLI_PROG, partial, ctx.msg);
        pkm_map_free(&prev);
        return EXIT_INPUT;
    }
    prev.keep_modes = map->keep_modes;
    prev.track_bytes = map->track_bytes;
    pkm_map_free(map);
    *map = prev;
    return 0;
}

/* --format csv: the summary's counts in one row, then the frequency range of each mode. */
static void map_print_summary_csv(const pkm_map *map, const pkm_case *c, double elapsed,
                                  const pkm_map_summary *s, const char *output)
{
    printf("case,poses,seconds,ok,unreachable,singular,failed,tracking,links,low_links,"
           "lowest_mac,solver_fallbacks,output\n%s,%lld,%.6g,%lld,%lld,%lld,%lld,",
           c->name, (long long)map->npoints, elapsed, (long long)s->count[PKM_POSE_OK],
           (long long)s->count[PKM_POSE_UNREACHABLE], (long long)s->count[PKM_POSE_SINGULAR],
           (long long)s->count[PKM_POSE_FAILED]);
    if (map->tracking == PKM_TRACK_MAC)
        printf("mac,%lld,%lld,%.17g,", (long long)s->links, (long long)s->low_links, s->lowest_mac);
    else
        printf("rank,,,,");
    printf("%lld,", (long long)map->solver_fallbacks);
    cli_csv_cell(output);
    printf("\n\nmode,f_min_hz,f_max_hz\n");
    for (int k = 0; k < map->nev && s->count[PKM_POSE_OK] > 0; k++)
        printf("%d,%.17g,%.17g\n", k + 1, s->freq_min[k], s->freq_max[k]);
}

/* The summary of a written map (pkm_map_summarize): pose counts by status, frequency ranges,
 * tracking. */
static int map_print_summary(const map_args *o, const pkm_map *map, const pkm_case *c,
                             double elapsed)
{
    pkm_map_summary s;
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_map_summarize(map, &s, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (o->csv) {
        map_print_summary_csv(map, c, elapsed, &s, o->output);
        pkm_map_summary_free(&s);
        return 0;
    }
    printf("# %s map, %lld poses in %.3f s (%.0f poses/s): %lld ok, %lld unreachable, "
           "%lld singular, %lld failed\n",
           c->name, (long long)map->npoints, elapsed, map->npoints / fmax(elapsed, 1e-9),
           (long long)s.count[PKM_POSE_OK], (long long)s.count[PKM_POSE_UNREACHABLE],
           (long long)s.count[PKM_POSE_SINGULAR], (long long)s.count[PKM_POSE_FAILED]);
    if (s.near_singular > 0)
        printf(
            "# %lld ok poses near-singular: closure conditioning with the drives locked below "
            "%.0e, their lowest modes the mechanism's near-free motion (/closure_conditioning)\n",
            (long long)s.near_singular, PKM_NEAR_SINGULAR);
    for (int k = 0; k < map->nev && s.count[PKM_POSE_OK] > 0; k++)
        printf("f%-3d %10.4f .. %10.4f Hz\n", k + 1, s.freq_min[k], s.freq_max[k]);
    if (map->tracking == PKM_TRACK_MAC)
        printf("# modes tracked by MAC over %lld links: %lld mode links below %g (lowest %.3f)\n",
               (long long)s.links, (long long)s.low_links, map->track.mac_threshold, s.lowest_mac);
    else
        printf("# modes ranked by frequency, not tracked: %s\n", map->tracking_note);
    if (map->eigensolver == PKM_EIG_BLOCK)
        printf("# block eigensolver: %lld of %lld computed poses handed to ARPACK (checks "
               "failed)\n",
               (long long)map->solver_fallbacks, (long long)s.count[PKM_POSE_OK]);
    pkm_map_summary_free(&s);
    return 0;
}

/* The checkpoint: continued with --resume, refused if present without it, else a new map;
 * 0 or an exit status. */
static int map_start(const map_args *o, const char *partial, pkm_map *map)
{
    if (o->resume) return map_resume_from(partial, map);
    if (access(partial, F_OK) == 0) {
        /* A checkpoint is somebody's hours of work: never overwrite it unasked. */
        fprintf(stderr,
                "%s: error: %s exists (an interrupted sweep): continue it with --resume, or "
                "remove it\n",
                CLI_PROG, partial);
        return EXIT_INPUT;
    }
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    const pkm_status st = pkm_map_alloc(map, &ctx);
    return st == PKM_OK ? 0 : cli_report(st, &ctx);
}

/* --vtk: ParaView shows at most 3 swept axes; a directory that can be written. Checked before
 * the sweep, not after it. */
static int map_check_vtk(const map_args *o, const pkm_map *map)
{
    if (o->vtk == NULL) return 0;
    int swept = 0;
    for (int a = 0; a < map->naxes; a++)
        swept += map->axes[a].count > 1;
    if (swept > 3)
        return cli_usage_error("--vtk: the grid sweeps %d axes; ParaView shows at most 3", swept);
    return cli_check_output_path(o->vtk);
}

/* Ctrl-C: the poses done so far to FILE.h5.partial (what a checkpoint holds), and how to
 * resume; exit 130 (128 + SIGINT, the shells' convention). */
static int map_interrupted(const map_args *o, const char *partial, const pkm_map *map)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    pkm_status st = pkm_map_write_h5(map, partial, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    int64_t done = 0;
    for (int64_t p = 0; p < map->npoints; p++)
        done += map->status[p] != PKM_POSE_PENDING;
    cli_print_resume(o->argc, o->argv, partial, done, map->npoints);
    return 128 + 2;
}

/* The sweep with its progress bar and checkpoints, then the file; 0 or an exit status. */
static int map_run(const map_args *o, const pkm_case *c, const void *params, const char *partial,
                   pkm_map *map, cli_ranks *ranks)
{
    pkm_ctx ctx;
    pkm_ctx_clear(&ctx);
    map_ui ui = {{cli_now(), 0.0}, !o->quiet && isatty(STDERR_FILENO), partial};
    pkm_sweep_opts so = pkm_sweep_opts_default();
    so.nworkers = o->threads;
    so.progress = map_sweep_progress;
    so.checkpoint = o->checkpoint_s > 0.0 ? map_sweep_checkpoint : NULL;
    so.checkpoint_interval = o->checkpoint_s;
    so.notice = map_sweep_notice;
    so.stop = map_sweep_stop;
    so.stall_timeout = o->stall_s;
    so.user = &ui;
    cli_interrupt_begin();
    pkm_status st = cli_ranks_sweep(ranks, c, params, map, &so, &ctx);
    cli_interrupt_end();
    const double elapsed = cli_now() - ui.pg.t0;
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (ranks->rank > 0) return 0; /* rank 0 writes the map */
    if (cli_interrupted()) return map_interrupted(o, partial, map);
    /* The vectors were kept for tracking; they go to the file only with --modes. */
    if (!o->modes) pkm_map_free_modes(map);
    st = pkm_map_write_h5(map, o->output, &ctx);
    if (st != PKM_OK) return cli_report_late(st, &ctx);
    if (unlink(partial) != 0 && errno != ENOENT)
        fprintf(stderr, "%s: warning: cannot remove %s: %s\n", CLI_PROG, partial, strerror(errno));
    if (o->vtk != NULL && (st = pkm_map_write_vtkhdf(map, o->vtk, &ctx)) != PKM_OK)
        return cli_report_late(st, &ctx);
    const int rc = map_print_summary(o, map, c, elapsed);
    if (rc == 0 && !o->csv) cli_ranks_print(ranks);
    if (rc == 0 && !o->csv)
        printf("# written to %s%s%s\n", o->output, o->vtk ? " and " : "", o->vtk ? o->vtk : "");
    return rc;
}

/* Rank 0 (the one process without mpirun) owns the output: its lock, the checkpoint to resume
 * or refuse, the check of memory and disk; the other ranks only compute, in a map of the same
 * settings. 0 or an exit status. */
static int map_prepare(const map_args *o, pkm_map *map, const cli_ranks *ranks, const char *partial,
                       const char *lock, int *lock_fd)
{
    if (o->threads > 1 && ranks->mpi)
        return cli_usage_error("--threads %d: under mpirun the ranks are the workers (mpirun -n)",
                               o->threads);
    if (ranks->rank > 0) {
        pkm_ctx ctx;
        pkm_ctx_clear(&ctx);
        const pkm_status st = pkm_map_alloc(map, &ctx);
        return st == PKM_OK ? 0 : cli_report(st, &ctx);
    }
    int rc = 0;
    if ((rc = cli_check_output_name(o->output)) != 0 ||
        (rc = cli_check_output_name(partial)) != 0 || (rc = map_take_lock(lock, lock_fd)) != 0 ||
        (rc = map_check_resources(map, o)) != 0 || (rc = map_start(o, partial, map)) != 0)
        return rc;
    return 0;
}

static int map_main(int argc, char **argv, cli_ranks *ranks)
{
    const pkm_track_opts tdef = pkm_track_opts_default();
    /* The warm-started block solver by default: 1.2-1.3 times ARPACK's poses per second on the
     * 60 x 60 NaVARo map, frequencies within 6e-15 of ARPACK's, the same map for any number of
     * workers, ranks or resumes (its tiles start cold: studies/sweep.c). */
    map_args o = {.c = {.nev = 8, .form = PKM_FORM_TREE, .eig = PKM_EIG_BLOCK},
                  .threads = 1,
                  .checkpoint_s = 5.0,
                  .mac_threshold = tdef.mac_threshold,
                  .cluster_tol = tdef.cluster_tol,
                  .argc = argc,
                  .argv = argv};
    int rc = cli_parse(argc, argv, &map_command, map_set, &o);
    if (rc != 0) return rc < 0 ? 0 : rc;
    const pkm_case *c = NULL;
    void *params = NULL;
    char *partial = NULL, *lock = NULL;
    int lock_fd = -1;
    pkm_map map;
    pkm_map_init(&map);
    if ((rc = cli_load_case(&o.c, &c, &params)) != 0 ||
        (rc = cli_case_supports(c, PKM_CASE_MODAL)) != 0)
        goto done;
    if (o.grid == NULL || o.output == NULL) {
        rc = cli_usage_error("map: --grid and -o FILE.h5 are required");
        goto done;
    }
    if ((rc = map_setup(&o, c, params, &map)) != 0 || (rc = map_check_vtk(&o, &map)) != 0 ||
        cli_check_only())
        goto done;
    map.keep_modes = o.modes;
    const size_t plen = strlen(o.output) + sizeof(".partial");
    partial = malloc(plen);
    lock = malloc(plen);
    if (partial == NULL || lock == NULL) {
        fprintf(stderr, "%s: error: out of memory\n", CLI_PROG);
        rc = EXIT_COMPUTE;
        goto done;
    }
    snprintf(partial, plen, "%s.partial", o.output);
    snprintf(lock, plen, "%s.lock", o.output);
    rc = cli_ranks_agree(ranks, map_prepare(&o, &map, ranks, partial, lock, &lock_fd));
    if (rc == 0) rc = map_run(&o, c, params, partial, &map, ranks);
done:
    map_release_lock(lock, lock_fd);
    pkm_map_free(&map);
    free(partial);
    free(lock);
    pkm_case_params_destroy(&params);
    return rc;
}

int cli_map(int argc, char **argv)
{
    cli_ranks ranks;
    int rc = cli_ranks_start(&ranks);
    if (rc == 0) rc = map_main(argc, argv, &ranks);
    cli_ranks_end(&ranks);
    return rc;
}
