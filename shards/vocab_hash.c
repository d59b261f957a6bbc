/* vocab_hash.c - SHA-256 of a file through OpenSSL's EVP interface. */
#include "vocab_hash.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "core/util.h"

int vocab_file_sha256(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        warnf("%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    unsigned char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) EVP_DigestUpdate(ctx, chunk, n);
    int failed = ferror(f);
    fclose(f);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, digest, &len);
    EVP_MD_CTX_free(ctx);
    if (failed) {
        warnf("%s: read error", path);
        return -1;
    }
    for (unsigned i = 0; i < len; i++) sprintf(hex + 2 * i, "%02x", digest[i]);
    return 0;
}
