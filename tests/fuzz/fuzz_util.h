/* tests/fuzz/fuzz_util.h: what the libFuzzer harnesses share.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef PKM_FUZZ_UTIL_H
#define PKM_FUZZ_UTIL_H

/* mkstemp; first of all includes. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of data (the parsers take C strings); NULL if out of memory. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (s == NULL) return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* data written to a new temporary file, for the readers that take a path; its name in path
 * (size >= 32), 0 on failure. The caller unlinks it. */
static inline int fuzz_tempfile(const uint8_t *data, size_t size, char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, cap, "%s/pkm_fuzz_XXXXXX", dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    const int fd = mkstemp(path);
    if (fd < 0) return 0;
    size_t done = 0;
    while (done < size) {
        const ssize_t w = write(fd, data + done, size - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    if (done == size) return 1;
    unlink(path);
    return 0;
}

#endif
