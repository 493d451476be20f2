// SPDX-License-Identifier: GPL-2.0-only
/*
 * SHA-256 and randomness from libcrypto.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "digest.h"
#include "error.h"

struct digest {
	EVP_MD_CTX *ctx;
};

static void to_hex(char *out, const unsigned char *in, size_t n)
{
	static const char hexd[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hexd[in[i] >> 4];
		out[2 * i + 1] = hexd[in[i] & 15];
	}
	out[2 * n] = '\0';
}

struct digest *digest_new(void)
{
	struct digest *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->ctx = EVP_MD_CTX_new();
	if (!d->ctx || EVP_DigestInit_ex(d->ctx, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(d->ctx);
		free(d);
		return NULL;
	}
	return d;
}

void digest_update(struct digest *d, const void *data, size_t len)
{
	EVP_DigestUpdate(d->ctx, data, len);
}

void digest_finish(struct digest *d, char out[DIGEST_HEXSZ + 1])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	EVP_DigestFinal_ex(d->ctx, md, &n);
	to_hex(out, md, n);
	EVP_MD_CTX_free(d->ctx);
	free(d);
}

void digest_sha256_hex(char out[DIGEST_HEXSZ + 1], const void *data, size_t len)
{
	unsigned char md[32];

	EVP_Digest(data, len, md, NULL, EVP_sha256(), NULL);
	to_hex(out, md, sizeof(md));
}

int digest_file_hex(char out[DIGEST_HEXSZ + 1], const char *path)
{
	FILE *f = fopen(path, "rb");
	struct digest *d;
	char chunk[65536];
	size_t n;

	if (!f)
		return err_sys(ERR_INFRA, "cannot read '%s'", path);
	d = digest_new();
	if (!d) {
		fclose(f);
		return err_set(ERR_NOMEM, "out of memory");
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		digest_update(d, chunk, n);
	digest_finish(d, out);
	if (ferror(f)) {
		fclose(f);
		return err_sys(ERR_INFRA, "cannot read '%s'", path);
	}
	fclose(f);
	return 0;
}

int digest_random_hex(char *out, size_t nbytes)
{
	unsigned char raw[64];

	if (nbytes > sizeof(raw) || RAND_bytes(raw, (int)nbytes) != 1)
		return err_set(ERR_INFRA, "no randomness");
	to_hex(out, raw, nbytes);
	return 0;
}

void digest_hmac_sha256_hex(char out[DIGEST_HEXSZ + 1], const char *key,
			    const void *data, size_t len)
{
	unsigned char mac[32];
	unsigned int n = sizeof(mac);

	if (!HMAC(EVP_sha256(), key, (int)strlen(key), data, len, mac, &n))
		n = 0;
	to_hex(out, mac, n);
}
