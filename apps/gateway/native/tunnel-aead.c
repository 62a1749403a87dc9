// AES-128-GCM records for the agent tunnel, with the cipher context kept from one record to the
// next. Node's crypto module makes a fresh context per call (about 16 µs for a 120-byte record on
// the bench VM); TLS records through Node's TLS socket cost a few µs each plus its machinery. Here a
// record costs a fraction of a µs (docs/gateway.md, "Sealed tunnel records").
//
// Record: u32 big-endian N, then N bytes: ciphertext followed by the 16-byte tag. The 4 header
// bytes are the additional data. Nonce: the 12-byte IV with the record's sequence number (u64
// big-endian, from 0) XORed into its last 8 bytes, as TLS 1.3 does. One context per direction.
//
// OpenSSL comes from the Node binary that loads the addon (its headers ship with Node).
#include <node_api.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TAG_BYTES 16
#define HEADER_BYTES 4
#define MAX_PIECES 256

typedef struct {
  EVP_CIPHER_CTX *evp;
  unsigned char iv[12];
  uint64_t seq;
  int encrypt;
  int broken; // a failed open: the stream of records cannot be trusted any more
} aead_t;

static napi_value throw_error(napi_env env, const char *msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

static void finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  aead_t *a = data;
  EVP_CIPHER_CTX_free(a->evp);
  OPENSSL_cleanse(a->iv, sizeof a->iv);
  free(a);
}

static void nonce_for(aead_t *a, unsigned char out[12]) {
  memcpy(out, a->iv, 12);
  for (int i = 0; i < 8; i++) out[11 - i] ^= (unsigned char)(a->seq >> (8 * i));
}

static int get_buffer(napi_env env, napi_value v, unsigned char **data, size_t *len) {
  void *p;
  if (napi_get_buffer_info(env, v, &p, len) != napi_ok) return 0;
  *data = p;
  return 1;
}

// The four arguments of seal and open; the first must be a context of the wanted direction (else NULL).
static aead_t *aead_args(napi_env env, napi_callback_info info, napi_value argv[4], int encrypt) {
  size_t argc = 4;
  void *p = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 4 ||
      napi_get_value_external(env, argv[0], &p) != napi_ok)
    return NULL;
  aead_t *a = p;
  return a->encrypt == encrypt ? a : NULL;
}

// Starts the record at `rec`, whose header is in place: this record's nonce, the header as additional data.
static int begin_record(aead_t *a, const unsigned char *rec) {
  unsigned char nonce[12];
  int len = 0;
  nonce_for(a, nonce);
  return EVP_CipherInit_ex(a->evp, NULL, NULL, NULL, nonce, -1) == 1 &&
         EVP_CipherUpdate(a->evp, NULL, &len, rec, HEADER_BYTES) == 1;
}

// create(key: Buffer(16), iv: Buffer(12), encrypt: boolean) -> External
static napi_value create(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  unsigned char *key, *iv;
  size_t key_len, iv_len;
  bool encrypt;
  if (argc < 3 || !get_buffer(env, argv[0], &key, &key_len) || key_len != 16 ||
      !get_buffer(env, argv[1], &iv, &iv_len) || iv_len != 12 ||
      napi_get_value_bool(env, argv[2], &encrypt) != napi_ok)
    return throw_error(env, "create(key: 16 bytes, iv: 12 bytes, encrypt: boolean)");
  aead_t *a = calloc(1, sizeof *a);
  if (!a) return throw_error(env, "out of memory");
  a->evp = EVP_CIPHER_CTX_new();
  a->encrypt = encrypt;
  memcpy(a->iv, iv, 12);
  if (!a->evp || EVP_CipherInit_ex(a->evp, EVP_aes_128_gcm(), NULL, key, NULL, encrypt ? 1 : 0) != 1) {
    EVP_CIPHER_CTX_free(a->evp);
    free(a);
    return throw_error(env, "AES-128-GCM is not available");
  }
  napi_value ext;
  napi_create_external(env, a, finalize, NULL, &ext);
  return ext;
}

// seal(ctx, pieces: Buffer[], out: Buffer, offset: number) -> bytes written (header + ciphertext + tag)
static napi_value seal(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  aead_t *a = aead_args(env, info, argv, 1);
  unsigned char *out;
  size_t out_len;
  uint32_t count, offset;
  if (!a || napi_get_array_length(env, argv[1], &count) != napi_ok || count > MAX_PIECES ||
      !get_buffer(env, argv[2], &out, &out_len) || napi_get_value_uint32(env, argv[3], &offset) != napi_ok)
    return throw_error(env, "seal(sealer, pieces: Buffer[] (at most 256), out: Buffer, offset: number)");
  unsigned char *pieces[MAX_PIECES];
  size_t lens[MAX_PIECES];
  size_t total = 0;
  for (uint32_t i = 0; i < count; i++) {
    napi_value el;
    if (napi_get_element(env, argv[1], i, &el) != napi_ok || !get_buffer(env, el, &pieces[i], &lens[i]))
      return throw_error(env, "seal: every piece must be a Buffer");
    total += lens[i];
  }
  if (total + TAG_BYTES > UINT32_MAX || offset > out_len || out_len - offset < HEADER_BYTES + total + TAG_BYTES)
    return throw_error(env, "seal: the output buffer is too small");
  unsigned char *rec = out + offset;
  uint32_t n = (uint32_t)(total + TAG_BYTES);
  rec[0] = n >> 24;
  rec[1] = n >> 16;
  rec[2] = n >> 8;
  rec[3] = n;
  int len = 0;
  unsigned char *ct = rec + HEADER_BYTES;
  if (!begin_record(a, rec)) return throw_error(env, "seal: cipher failure");
  for (uint32_t i = 0; i < count; i++) {
    if (lens[i] == 0) continue;
    if (EVP_EncryptUpdate(a->evp, ct, &len, pieces[i], (int)lens[i]) != 1) return throw_error(env, "seal: cipher failure");
    ct += len;
  }
  if (EVP_EncryptFinal_ex(a->evp, ct, &len) != 1) return throw_error(env, "seal: cipher failure");
  ct += len;
  if (EVP_CIPHER_CTX_ctrl(a->evp, EVP_CTRL_AEAD_GET_TAG, TAG_BYTES, ct) != 1) return throw_error(env, "seal: cipher failure");
  a->seq++;
  napi_value r;
  napi_create_uint32(env, HEADER_BYTES + n, &r);
  return r;
}

// open(ctx, buf: Buffer, start: number, end: number) -> plaintext length, or -1 when the record is
// forged or out of order. buf[start..end) is one whole record; the plaintext replaces its
// ciphertext (from start + 4). After a -1 every later call fails too.
static napi_value open_record(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  aead_t *a = aead_args(env, info, argv, 0);
  unsigned char *buf;
  size_t buf_len;
  uint32_t start, end;
  if (!a || !get_buffer(env, argv[1], &buf, &buf_len) ||
      napi_get_value_uint32(env, argv[2], &start) != napi_ok || napi_get_value_uint32(env, argv[3], &end) != napi_ok)
    return throw_error(env, "open(opener, buf: Buffer, start: number, end: number)");
  if (end > buf_len || start > end || end - start < HEADER_BYTES + TAG_BYTES)
    return throw_error(env, "open: the record lies outside the buffer");
  unsigned char *rec = buf + start;
  uint32_t n = ((uint32_t)rec[0] << 24) | ((uint32_t)rec[1] << 16) | ((uint32_t)rec[2] << 8) | rec[3];
  if (n != end - start - HEADER_BYTES) return throw_error(env, "open: the length does not match the header");
  int result = -1;
  if (!a->broken) {
    int len = 0, fin = 0;
    unsigned char *ct = rec + HEADER_BYTES;
    int ct_len = (int)(n - TAG_BYTES);
    if (begin_record(a, rec) &&
        (ct_len == 0 || EVP_DecryptUpdate(a->evp, ct, &len, ct, ct_len) == 1) &&
        EVP_CIPHER_CTX_ctrl(a->evp, EVP_CTRL_AEAD_SET_TAG, TAG_BYTES, ct + ct_len) == 1 &&
        EVP_DecryptFinal_ex(a->evp, ct + (ct_len ? len : 0), &fin) == 1) {
      result = ct_len;
      a->seq++;
    } else {
      a->broken = 1;
    }
  }
  napi_value r;
  napi_create_int32(env, result, &r);
  return r;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"create", NULL, create, NULL, NULL, NULL, napi_default, NULL},
      {"seal", NULL, seal, NULL, NULL, NULL, napi_default, NULL},
      {"open", NULL, open_record, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, 3, props);
  return exports;
}
