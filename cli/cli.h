/* cli/cli.h: what the commands of pkmflex share: option tables and their parser, the help
 * printer, exit statuses and messages, case loading.
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Each command (cli/modes.c, compare.c, map.c, cases.c, dynamics.c) has its own table of options,
 * from which its --help is printed and against which its arguments are parsed: an option a command
 * does not take is an error naming both (exit 2), not silently ignored. */
#ifndef PKM_CLI_H
#define PKM_CLI_H

#include "pkm/analysis.h"
#include "pkm/casefile.h"
#include "pkm/cases.h"
#include "pkm/dynamics.h"
#include "pkm/motion.h"
#include "pkm/trajectory.h"
#include "pkm/fit.h"
#include "pkm/io.h"

#include <stddef.h>

#define CLI_PROG        "pkmflex"
#define EXIT_TOL        1   /* compare: a frequency outside the tolerance */
#define EXIT_INPUT      2   /* bad input: one line on stderr naming the parameter, file or option */
#define EXIT_COMPUTE    3   /* the computation failed */
#define EXIT_INTERRUPT  130 /* Ctrl-C (128 + SIGINT, the shells' convention): what was done kept */
#define CLI_MAX_SETS    64
#define CLI_MAX_OPTIONS 64 /* options of one command's table, at most */

/* Option ids shared by the commands; a command numbers its own from CLI_OPT_OWN. */
enum {
    CLI_ARG = 0, /* a positional argument (the CASE) */
    CLI_OPT_POSE,
    CLI_OPT_NEV,
    CLI_OPT_SET,
    CLI_OPT_FORMULATION,
    CLI_OPT_SOLVER,
    /* the options of the commands that run along time (cli_run_args) */
    CLI_OPT_FORMAT,
    CLI_OPT_OUTPUT,
    CLI_OPT_TRAJECTORY,
    CLI_OPT_TIME,
    CLI_OPT_SINGULAR,
    CLI_OPT_FORWARD,
    CLI_OPT_PER_TIME,
    CLI_OPT_WRENCH,  /* dynamics, transient: cli_parse_wrench */
    CLI_OPT_WEIGHTS, /* dynamics: the redundant drives' weights (cli_parse_weights) */
    CLI_OPT_PRELOAD, /* dynamics: the redundant drives' preload */
    CLI_OPT_OWN = 20
};

/* One option: its names, whether a value follows, the id handed to the command, and its help
 * (the value's name, and the text: lines separated by '\n', or written by help_fn). */
typedef struct cli_option {
    const char *name;  /* "--output" */
    const char *alias; /* "-o", or NULL */
    int takes_value;
    int id;
    const char *arg; /* the value in the help, e.g. "FILE.h5"; NULL for a flag */
    const char *help;
    void (*help_fn)(char *buf, size_t cap); /* help generated from the registries, or NULL */
} cli_option;

typedef struct cli_command {
    const char *name;
    const char *usage; /* printed before the options */
    const cli_option *options;
    int noptions;
    int case_options; /* also takes cli_case_options and lists the case parameters */
} cli_command;

/* The options that the commands running along time share, declared once (an entry of a
 * command's table; what the command does with the value is cli_run_option's, its text below). */
#define CLI_OPTION_FORMAT                                                                          \
    {                                                                                              \
        "--format", NULL, 1, CLI_OPT_FORMAT, "table|csv|json",                                     \
            "output format: a table, csv rows, or JSON objects of the\n"                           \
            "csv rows (the columns: the text above)",                                              \
            NULL                                                                                   \
    }
#define CLI_OPTION_WRENCH                                                                          \
    {                                                                                              \
        "--wrench", NULL, 1, CLI_OPT_WRENCH, "FX,FY,FZ,MX,MY,MZ|FILE.csv",                         \
            "external wrench on the platform at its reference point,\n"                            \
            "global axes (N, N m): constant, or a CSV file with the\n"                             \
            "header t,fx,fy,fz,mx,my,mz interpolated by a spline",                                 \
            NULL                                                                                   \
    }
#define CLI_OPTION_WEIGHTS                                                                         \
    {                                                                                              \
        "--weights", NULL, 1, CLI_OPT_WEIGHTS, "W1,W2,...",                                        \
            "a redundant actuation's drives of least weighted norm\n"                              \
            "sum W_i tau_i^2, one W_i > 0 per actuated joint (default 1)",                         \
            NULL                                                                                   \
    }
#define CLI_OPTION_PRELOAD                                                                         \
    {                                                                                              \
        "--preload", NULL, 1, CLI_OPT_PRELOAD, "T1,T2,...",                                        \
            "drives (N m or N, one per actuated joint) whose null-space\n"                         \
            "part is added: an internal preload that moves nothing (a\n"                           \
            "redundant actuation's freedom)",                                                      \
            NULL                                                                                   \
    }
#define CLI_OPTION_SET                                                                             \
    {                                                                                              \
        "--set", NULL, 1, CLI_OPT_SET, "KEY=VALUE",                                                \
            "override a case parameter, after the case file: an SI\n"                              \
            "number or a number and a unit (gravity.z=-9.81), repeatable\n"                        \
            "(pkmflex cases --params CASE lists the keys)",                                        \
            NULL                                                                                   \
    }
#define CLI_OPTION_OUTPUT                                                                          \
    {                                                                                              \
        "--output", "-o", 1, CLI_OPT_OUTPUT, "FILE.h5",                                            \
            "write the rows to an HDF5 file (docs/hdf5-layout.md); after\n"                        \
            "Ctrl-C it holds the times done, marked partial (root\n"                               \
            "attribute complete = 0)",                                                             \
            NULL                                                                                   \
    }
#define CLI_OPTION_TRAJECTORY                                                                      \
    {                                                                                              \
        "--trajectory", NULL, 1, CLI_OPT_TRAJECTORY, "NAME|FILE.csv",                              \
            "a named trajectory of the case (pkmflex cases lists them;\n"                          \
            "default: the first), or a CSV file of samples: header\n"                              \
            "t,<pose coordinates>, interpolated by a not-a-knot spline;\n"                         \
            "or harmonic:COORD,AMPLITUDE,FREQUENCY: one pose coordinate\n"                         \
            "as home + A sin(2 pi f t), the others at home (20 periods)",                          \
            NULL                                                                                   \
    }
#define CLI_OPTION_TIME                                                                            \
    {                                                                                              \
        "--time", NULL, 1, CLI_OPT_TIME, "T0:T1:N",                                                \
            "N >= 2 equally spaced times from T0 to T1 > T0, s (default:\n"                        \
            "101 over the trajectory's span)",                                                     \
            NULL                                                                                   \
    }
#define CLI_OPTION_SINGULAR                                                                        \
    {                                                                                              \
        "--singular", NULL, 1, CLI_OPT_SINGULAR, "R",                                              \
            "dimensionless conditioning of the rigid loop closure below\n"                         \
            "which a pose is singular (1e-12 to 0.5; default 1e-7 where\n"                         \
            "the pose places the platform, as the finite-element model's\n"                        \
            "inverse kinematics; else 5e-3)",                                                      \
            NULL                                                                                   \
    }
#define CLI_OPTION_FORWARD                                                                         \
    {                                                                                              \
        "--forward", NULL, 0, CLI_OPT_FORWARD, NULL,                                               \
            "forward dynamics instead: RK4 from the trajectory's state\n"                          \
            "under the drives of its inverse dynamics; per time the\n"                             \
            "deviation from the trajectory and the energy balance\n"                               \
            "(docs/dynamics.md)",                                                                  \
            NULL                                                                                   \
    }
#define CLI_OPTION_PER_TIME                                                                        \
    {                                                                                              \
        "--per-time", NULL, 0, CLI_OPT_PER_TIME, NULL,                                             \
            "print the per-time table (t, then the case's quantities per\n"                        \
            "time: pose, contact forces, residuals, M_A, MCI, the\n"                               \
            "closure's conditioning, energies) instead of the joint table",                        \
            NULL                                                                                   \
    }

/* Their values. */
typedef struct cli_run_args {
    const char *format; /* "table", "csv" or "json" */
    const char *output; /* -o FILE.h5, or NULL */
    const char *traj;   /* --trajectory, or NULL: the default */
    const char *time;   /* T0:T1:N, or NULL */
    double singular;    /* the closure's conditioning threshold (0: the route's) */
    int forward, per_time;
} cli_run_args;
/* Option id's value into a: 1 if id is one of CLI_OPT_FORMAT .. CLI_OPT_PER_TIME (*rc then 0 or
 * an exit status after its one line), else 0. */
int cli_run_option(cli_run_args *a, int id, const char *v, int *rc);

/* --nev, --set, --formulation, --solver: the options of the commands that solve a case. */
extern const cli_option cli_case_options[];
/* The help of --formulation: the formulations and each case's default. */
void cli_formulation_help(char *buf, size_t cap);
extern const int cli_ncase_options;

/* Stores the value of option id (the argument itself for CLI_ARG, NULL for a flag) into user;
 * 0 or an exit status. */
typedef int (*cli_set_fn)(void *user, int id, const char *value);

/* Parse argv[2..] against cmd's options; 0, an exit status, or -1 when the help was printed. */
int cli_parse(int argc, char **argv, const cli_command *cmd, cli_set_fn set, void *user);
void cli_print_help(const cli_command *cmd);
/* The parameters of case c (the keys of --set) with their units and ranges: cases --params. */
void cli_print_case_params(const pkm_case *c);

/* The arguments of a command that solves a case. */
typedef struct cli_case_args {
    const char *case_name;
    const char *pose_text;
    int nev;
    pkm_formulation form;
    int form_given; /* --formulation was given; otherwise the case's own */
    pkm_eigensolver eig;
    int nsets;
    const char *sets[CLI_MAX_SETS];
} cli_case_args;

/* The options of cli_case_args (CLI_ARG to CLI_OPT_SOLVER); 0 or an exit status. */
int cli_case_set(cli_case_args *a, int id, const char *value);

/* The case named on the command line (a built-in or a case file) with its --set overrides
 * applied after the file; the case's formulation unless --formulation was given. */
int cli_load_case(cli_case_args *a, const pkm_case **c, void **params);
int cli_is_case_file(const char *arg);
/* The built-in case of that name (pkm_case_names) with its built-in values
 * (pkm_case_params_destroy), or NULL if it does not open (a broken build): for lists and help. */
const pkm_case *cli_builtin(const char *name, void **params);
/* T0:T1:N, N from 2 to max and T1 > T0, both finite: 1 if parsed. */
int cli_parse_times(const char *text, int max, double *t0, double *t1, int *n);
/* -o FILE: FILE (and the temporary files beside it) are replaced by rename(2), which would put a
 * regular file in place of a symbolic link or a device node: such names are refused, one line,
 * EXIT_INPUT; 0 otherwise. */
int cli_check_output_name(const char *path);
/* -o FILE: cli_check_output_name, and a directory that can be written (exit 2 otherwise). */
int cli_check_output_path(const char *path);
/* -o: exit 2 when keeping the rows of n units ("times", "steps": bytes) would take over half the
 * free memory, the message ending with what to change (hint). */
int cli_check_output_memory(double bytes, int64_t n, const char *unit, const char *hint);
/* 0 if case c supports the analysis (PKM_CASE_MODAL, PKM_CASE_DYNAMICS), else one line naming
 * the case and the command to use instead, and EXIT_INPUT. */
int cli_case_supports(const pkm_case *c, unsigned analysis);
const char *cli_formulation_name(pkm_formulation f);

/* --match order|nearest (is_mode) or --gap PCT (else) into o; 0 or EXIT_INPUT (one line). */
int cli_match_set(pkm_match_opts *o, int is_mode, const char *v);
/* A table with rows of kind (NULL: any): 0, or EXIT_INPUT naming the table and the kind. */
int cli_table_rows(const pkm_table *tab, const char *path, const char *kind);

/* Parsers of option values: 1 if text is valid, else 0. */
int cli_parse_int(const char *text, int lo, int hi, int *v);
int cli_parse_real(const char *text, double lo, double hi, double *v);
/* --format VALUE: 0 for table, csv or json, else the one-line error and exit 2. */
int cli_check_format(const char *v);
/* csv or json: the formats printed as csv rows (json converts them, cli/json.c). */
int cli_format_is_rows(const char *format);
/* One csv cell, in double quotes (a quote doubled) if it holds a comma, a quote or a newline. */
void cli_csv_cell(const char *s);
/* argv asks for --format json. */
int cli_wants_json(int argc, char **argv);
/* From begin to end, stdout goes to a temporary file; end prints it as JSON if ok, else drops it
 * (the error is on stderr). begin: 0 or an exit status. */
int cli_json_begin(void);
void cli_json_end(int ok);
/* --singular R (the loop-closure conditioning threshold, 1e-12 to 0.5) into *r: 0 or exit 2. */
int cli_parse_singular(const char *v, double *r);

/* Messages on stderr, one line each; they return the exit status. */
int cli_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
int cli_exit_status_of(pkm_status st);
int cli_report(pkm_status st, const pkm_ctx *ctx);
/* cli_report for a failure once the inputs were accepted: a file that cannot be written then
 * (full disk, file size limit) is a failed computation, exit 3, not bad input. */
int cli_report_late(pkm_status st, const pkm_ctx *ctx);

double cli_now(void);

/* The option fuzzer's mode (tests/fuzz/fuzz_options.c): cli_compare, cli_map, cli_cases,
 * cli_dynamics return 0 once their input is checked (options, case, --set values, grid), before
 * any trajectory file, model, solve or output. */
void cli_set_check_only(int on);
int cli_check_only(void);

/* Standard output failed (a full disk, a closed file): the writers of long outputs stop there
 * rather than compute rows nobody will read. */
int cli_output_failed(void);
/* The one line of a failed write to standard output (errnum: its errno, or 0), exit 3. */
int cli_output_error(int errnum);

/* A progress bar on stderr with rate and time left, redrawn at most 10 times a second, a newline
 * when done == total; unit names the items (poses, steps). t0: cli_now() at the start. */
typedef struct cli_progress {
    double t0, last;
} cli_progress;
void cli_progress_show(cli_progress *pg, int64_t done, int64_t total, const char *unit);

/* After a run: when its closure's lowest conditioning cond (at time t) is below
 * PKM_NEAR_SINGULAR, one warning on stderr naming both, the drives `held` or `locked`, and what
 * it means for the command (detail). */
void cli_warn_near_singular(double cond, double t, const char *drives, const char *detail);

/* A long run announced before most of it is done (issue 30): its time estimated from the steps
 * after the first, timed over CLI_ESTIMATE_TIMING_S, and when above CLI_ESTIMATE_WARN_S one
 * warning on stderr with its size (rows x columns, GB) and the time left; not refused (it is an
 * estimate), and Ctrl-C keeps whole rows. */
#define CLI_ESTIMATE_TIMING_S 0.2
#define CLI_ESTIMATE_WARN_S   30.0
typedef struct cli_estimate {
    const char *what;     /* "dynamics navaro" */
    const char *unit;     /* what a step is: "times", "steps" */
    double rows;          /* the run's rows, */
    int cols;             /* their columns */
    double bytes_per_row; /* in the output asked for */
    const char *output;   /* -o FILE, or NULL for stdout */
    double t_first;       /* cli_now() at step 0 */
    int done;             /* estimated (once) */
} cli_estimate;
/* At step (0-based) of total steps. */
void cli_estimate_tick(cli_estimate *e, int64_t step, int64_t total);

/* --trajectory: a named trajectory of case c (traj NULL: its first), its span stretched to t_end
 * (the analytic laws hold for any t >= 0), or a CSV file of samples (a name with a '/' or
 * ending in .csv), or harmonic:COORD,AMPLITUDE,FREQUENCY (one pose coordinate as home + A
 * sin(2 pi f t), the others at home, for 20 periods or to t_end); 0, or an exit status after
 * one line naming the trajectory. */
int cli_trajectory(const pkm_case *c, const char *traj, double t_end, pkm_trajectory **tr);

/* --wrench (cli/transient_loads.c): FX,FY,FZ,MX,MY,MZ into w, or a CSV file (a name with a '/'
 * or ending in .csv, header t,fx,fy,fz,mx,my,mz) into *series; 0, or an exit status after one
 * line naming the option, or the file and line. */
int cli_parse_wrench(const char *spec, double w[6], pkm_trajectory **series);
/* --weights W1,...: n finite weights > 0 into w; --preload T1,...: n finite drives into p; 0 or
 * exit 2 naming the option. */
int cli_parse_weights(const char *text, int n, double *w);
int cli_parse_preload(const char *text, int n, double *p);

/* The ranks of `pkmflex map` under mpirun (cli/ranks.c): MPI is started and ended there, in a
 * PKM_MPI build launched by mpirun; otherwise one rank of one, and the sweep pkm_map_sweep. */
typedef struct cli_ranks {
    int rank, size;
    int mpi;     /* MPI started by cli_ranks_start */
    void *stats; /* rank 0: what each rank did in the sweep (pkm_sweep_rank_stats), or NULL */
} cli_ranks;
/* 0, or exit 3 if MPI cannot start. The other ranks' stdout and stderr go to /dev/null: rank 0
 * speaks for the run (their errors reach it through the sweep). */
int cli_ranks_start(cli_ranks *r);
/* Rank 0's exit status, for every rank (collective). */
int cli_ranks_agree(const cli_ranks *r, int rc);
pkm_status cli_ranks_sweep(cli_ranks *r, const pkm_case *c, const void *params, pkm_map *map,
                           const pkm_sweep_opts *so, pkm_ctx *ctx);
/* Rank 0 of an MPI run: one line per rank (poses, tiles, busy, waiting, CPU time). */
void cli_ranks_print(const cli_ranks *r);
void cli_ranks_end(cli_ranks *r);

int cli_modes(int argc, char **argv);
int cli_compare(int argc, char **argv);
int cli_map(int argc, char **argv);
int cli_cases(int argc, char **argv);
int cli_dynamics(int argc, char **argv);
int cli_transient(int argc, char **argv);
int cli_fit(int argc, char **argv);
int cli_export(int argc, char **argv);
int cli_plot(int argc, char **argv);

/* cli/habits.c. The closest of n names to word (an edit distance of at most a third of its
 * length, 2 from 4 letters on, or a name it begins), or NULL. */
const char *cli_suggest(const char *word, const char *const *names, int n);
/* " (did you mean 'NAME'?)" with cli_suggest's name, written into buf, or "" if none. */
const char *cli_did_you_mean(const char *word, const char *const *names, int n, char *buf,
                             size_t cap);
/* The quantity in s[0..len) (spaces before it skipped): a number in unit or a number and a unit
 * of its dimension (pkm_quantity_parse: "30 deg", "10 mm"); 1 if it parses, else 0. */
int cli_parse_quantity_span(const char *s, size_t len, const char *unit, double *v);
/* n comma-separated quantities, coordinate k in units[k]; 1 if they parse, else 0. */
int cli_parse_pose(const char *text, int n, const char *const *units, double *pose);
/* Ctrl-C: from begin to end the first SIGINT only sets the flag cli_interrupted reads (a
 * second one ends the process); end restores the previous handler. */
void cli_interrupt_begin(void);
int cli_interrupted(void);
void cli_interrupt_end(void);
/* One stderr message: the computation was interrupted with done of total poses saved in saved,
 * and the command (argv, without a --resume) to run with --resume. */
void cli_print_resume(int argc, char **argv, const char *saved, int64_t done, int64_t total);
/* modes --describe (cli/describe.c): per mode of md (solved by an with its dof map kept, on m)
 * the platform's twist, effective masses and strain energy shares, as a table or csv. */
int cli_modes_describe(const pkm_model *m, const pkm_analysis *an, const pkm_modes *md, int csv);

/* cli/rows.c: the rows of pkmflex dynamics, every case and engine (docs/dynamics.md, "Output
 * columns"): the joint table (CLI_ROWS_HEADER; per time and joint the values of
 * pkm_dyn_series_columns, NaN for a quantity the case lacks: an empty csv cell) or, per_time,
 * the per-time table (t and the case's columns), printed; or, after cli_rows_keep, kept for one
 * HDF5 file (pkm_dyn_series_write_h5) holding both. */
#define CLI_ROWS_HEADER "t,joint,type,q,qd,qdd,drive,ideal,friction,f_axial,f_radial,m_bending"
typedef struct cli_rows {
    int csv, per_time; /* csv (json) or table; the per-time table instead of the joint table */
    int njoint;
    const char *const *joints, *const *types;
    int ncol;
    const pkm_column *cols;
    int64_t cap, done; /* kept: room for cap times; times handed over */
    double *t, *value[PKM_DYN_SERIES_COLUMNS], *wrench, *pt;
} cli_rows;
typedef struct cli_rows_source {
    const char *case_name, *trajectory, *friction;
} cli_rows_source;
/* -o: room for ntime times (wrench: the joints' reaction wrenches too), the memory checked
 * first: 0 or exit 2 naming the size. */
int cli_rows_keep(cli_rows *r, int64_t ntime, int wrench);
/* Time k (0, 1, ...): v [njoint][PKM_DYN_SERIES_COLUMNS], wrench [njoint][6] or NULL, pt [ncol]:
 * printed (the header before time 0) or kept. */
void cli_rows_put(cli_rows *r, int64_t k, double t, const double *v, const double *wrench,
                  const double *pt);
/* The kept times to path (partial: marked so); "# wrote" on stdout; 0 or exit 3. */
int cli_rows_write(const cli_rows *r, const char *path, const cli_rows_source *src, int partial);
void cli_rows_free(cli_rows *r);

/* cli/cases.c: one row of `pkmflex cases --format csv` (CLI_CASES_HEADER), each cell quoted
 * as needed; pose and actuated as "name [unit] ...", analyses and trajectories space-separated
 * (the default trajectory first). */
#define CLI_CASES_HEADER "name,kind,pose,actuated,analyses,trajectories,description,file"
void cli_cases_row(const char *const cell[8]);
/* A case's row under name (kind "case" or "robot file", file "" for a built-in), and its entry
 * in the table listing (file NULL for a built-in case). */
void cli_case_row(const pkm_case *c, const void *params, const char *name, const char *kind,
                  const char *file);
void cli_case_print(const pkm_case *c, const void *params, const char *name, const char *file);

/* cli/examples.c: the robot files of examples/ (installed or in the source tree) in the list. */
void cli_examples_list(int csv);

#endif
