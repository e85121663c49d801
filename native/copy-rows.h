// What the writers of PostgreSQL listings (copy-json.cc, copy-lines.cc) share: reading a binary
// COPY's CopyData messages of one tuple each, and their N-API arguments.
#pragma once

#include <node_api.h>
#include <stdint.h>
#include <string.h>

#include <cmath>

namespace copy_rows {

inline int32_t Int4(const uint8_t* p) {
  return static_cast<int32_t>((static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
                              (static_cast<uint32_t>(p[2]) << 8) | static_cast<uint32_t>(p[3]));
}

inline int64_t Int8(const uint8_t* p) {
  return static_cast<int64_t>((static_cast<uint64_t>(static_cast<uint32_t>(Int4(p))) << 32) |
                              static_cast<uint32_t>(Int4(p + 4)));
}

/** As JavaScript reads the 8 bytes: the high half times 2^32 plus the low half, one rounding. */
inline double Int8AsNumber(const uint8_t* p) {
  return static_cast<double>(Int4(p)) * 4294967296.0 + static_cast<double>(static_cast<uint32_t>(Int4(p + 4)));
}

/**
 * The CopyData message at in[at, end) read as exactly one tuple of `fields` fields: each field's
 * start and size (-1 for NULL). Returns the message's whole length, or 0 when it is not that
 * (another message, one not all in the input, another field count, bytes left over).
 */
inline int64_t Tuple(const uint8_t* in, int64_t at, int64_t end, int fields, const uint8_t** field, int32_t* size) {
  if (at + 5 > end) return 0;
  const uint8_t* m = in + at;
  if (m[0] != 'd') return 0;
  int64_t length = Int4(m + 1);
  if (length < 4 || at + 1 + length > end) return 0;
  const uint8_t* p = m + 5;
  const uint8_t* bodyEnd = m + 1 + length;
  if (bodyEnd - p < 2 || p[0] != ((fields >> 8) & 0xff) || p[1] != (fields & 0xff)) return 0;
  p += 2;
  for (int i = 0; i < fields; i++) {
    if (bodyEnd - p < 4) return 0;
    size[i] = Int4(p);
    p += 4;
    field[i] = p;
    if (size[i] > 0) {
      if (bodyEnd - p < size[i]) return 0;
      p += size[i];
    }
  }
  return p == bodyEnd ? 1 + length : 0;
}

inline bool Bytes(napi_env env, napi_value v, uint8_t** data, size_t* length) {
  bool is = false;
  if (napi_is_buffer(env, v, &is) != napi_ok || !is) return false;
  void* p = nullptr;
  if (napi_get_buffer_info(env, v, &p, length) != napi_ok) return false;
  *data = static_cast<uint8_t*>(p);
  return true;
}

inline bool Integer(napi_env env, napi_value v, int64_t* out) {
  double d = 0;
  if (napi_get_value_double(env, v, &d) != napi_ok || !std::isfinite(d) || d < 0) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

/** Whether `v` is a typed array of `type` with at least `least` elements: its data (nullptr when empty) and length. */
inline bool Typed(napi_env env, napi_value v, napi_typedarray_type type, size_t least, void** data, size_t* length) {
  bool is = false;
  napi_is_typedarray(env, v, &is);
  if (!is) return false;
  napi_typedarray_type actual;
  napi_get_typedarray_info(env, v, &actual, length, data, nullptr, nullptr);
  return actual == type && *length >= least;
}

inline napi_value Fail(napi_env env, const char* message) {
  napi_throw_type_error(env, nullptr, message);
  return nullptr;
}

inline uint8_t* Put(uint8_t* o, const uint8_t* s, size_t n) {
  memcpy(o, s, n);
  return o + n;
}

}  // namespace copy_rows
