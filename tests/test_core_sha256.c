/* tests/test_core_sha256.c: SHA-256 (core/sha256.c) against the FIPS 180-2 appendix B vectors
 * and the padding boundaries.
 * SPDX-License-Identifier: LGPL-2.1-or-later */
#include "test_util.h"

#include "core/core_impl.h"

#include <stdlib.h>
#include <string.h>

static void assert_digest(const void *data, size_t len, const char *want)
{
    char hex[65];
    pkm_sha256_hex(data, len, hex);
    assert_string_equal(hex, want);
}

/* FIPS 180-2, appendix B.1, B.2, B.3. */
static void test_fips_vectors(void **state)
{
    (void)state;
    assert_digest("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *b2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    assert_digest(b2, strlen(b2),
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const size_t n = 1000000;
    char *a = malloc(n);
    assert_non_null(a);
    memset(a, 'a', n);
    assert_digest(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* The empty message, and 55/56/64 bytes, where the length moves into a second padding block
 * (digests from coreutils sha256sum). */
static void test_padding_boundaries(void **state)
{
    (void)state;
    assert_digest("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    char buf[64];
    memset(buf, 'a', sizeof(buf));
    assert_digest(buf, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    assert_digest(buf, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    assert_digest(buf, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips_vectors),
        cmocka_unit_test(test_padding_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
