// CLibcrypto — OpenSSL 3's libcrypto as Swift sees it (a system library target: libssl-dev,
// pkg-config libcrypto; at run time libssl3, on every Debian system).
//
// Owns: the header for the one-shot SHA256(), which derives the ids of rows unique by meaning.
// Must not: hold code.
// Depends on: libcrypto.
#include <openssl/sha.h>
