/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * SHA-256 and random tokens over OpenSSL's libcrypto, the only file that
 * includes it: artifact checksums, hashed API tokens, lease ids, webhook
 * signatures.
 */
#ifndef BISECTD_DIGEST_H
#define BISECTD_DIGEST_H

#include <stddef.h>

#define DIGEST_HEXSZ 64

/* The SHA-256 of data as 64 lowercase hex digits and a NUL. */
void digest_sha256_hex(char out[DIGEST_HEXSZ + 1], const void *data,
		       size_t len);

/* The SHA-256 of a file's content; ERR_INFRA when it cannot be read. */
int digest_file_hex(char out[DIGEST_HEXSZ + 1], const char *path);

/* Incremental hashing, for uploads that arrive in pieces. */
struct digest;
struct digest *digest_new(void);
void digest_update(struct digest *d, const void *data, size_t len);
/* Write the hex digest and free d. */
void digest_finish(struct digest *d, char out[DIGEST_HEXSZ + 1]);

/* HMAC-SHA256 of data under key, as 64 hex digits: a webhook's
 * signature. */
void digest_hmac_sha256_hex(char out[DIGEST_HEXSZ + 1], const char *key,
			    const void *data, size_t len);

/* nbytes of randomness as hex (2 * nbytes + 1 bytes in out). */
int digest_random_hex(char *out, size_t nbytes);

#endif
