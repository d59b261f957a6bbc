/* vocab_hash.h - the SHA-256 of a vocabulary file, as the manifest records it. */
#ifndef WINNOW_VOCAB_HASH_H
#define WINNOW_VOCAB_HASH_H

/* Writes the lowercase hex SHA-256 of the file at path into hex (65 bytes).
 * Returns 0, or -1 and prints why. */
int vocab_file_sha256(const char *path, char hex[65]);

#endif
