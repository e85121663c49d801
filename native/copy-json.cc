// `status --json`'s objects from PostgreSQL's binary COPY, written in C++
// (src/store/postgres/native-json-rows.ts). The JavaScript reader (task-json-page.ts) does the
// same and remains the reference: on two cores it spent the first 20,000 of 100,000 rows in
// V8's interpreter while the compiler's threads shared the machine with the server, about 100 ms
// of a 330 ms `status --json` (docs/benchmarks.md). This reads the socket's bytes as they come,
// whole CopyData messages one after another, and writes each object into the page's buffer.
//
// jsonRows(input, at, end, out, outAt, count, known, keys, statusAfter, updatedAfter, result)
//   input[at, end): protocol messages (a type byte, a 32-bit length that counts itself, the body);
//   out: the page's buffer, written from outAt; count: the objects already in it (a comma
//     goes before each but the first);
//   known: the statuses and final verdicts fixpoint writes, each followed by a NUL byte, none
//     needing an escape in JSON;
//   keys: what goes before each stored value (`{"id":`, `,"type":`, ...), each followed by a NUL
//     byte; statusAfter, updatedAfter: the values after which the status and final verdict, and
//     the update time, are written (migration 010 stores the values between U+0001 separators);
//   result (Float64Array of 6): where it stopped in input, where in out, the count, the last row's
//     seq (NaN when it wrote none), 1 when a row's token hint was not `0` (else 0), and the bytes
//     of out a row needed when it stopped for room (else 0).
// It stops at the first message it does not write whole: another type than CopyData ('d'), one
// not all in input, a CopyData that is not exactly one tuple of the five fields
// (status_json, status, final_verdict, updated_at, seq), a status or verdict not in `known`, an
// update time outside the years 1970-9999, a stored text without one separator fewer than
// keys, or a row that needs more room than out has. The caller reads that message its own way.

#include "copy-rows.h"

namespace {

using copy_rows::Bytes;
using copy_rows::Fail;
using copy_rows::Int4;
using copy_rows::Int8;
using copy_rows::Int8AsNumber;
using copy_rows::Integer;
using copy_rows::Tuple;
using copy_rows::Typed;

inline uint8_t* Put(uint8_t* o, const char* s, size_t n) {
  return copy_rows::Put(o, reinterpret_cast<const uint8_t*>(s), n);
}

constexpr uint8_t kSeparator = 0x01;
constexpr int kMostKeys = 64;
constexpr int64_t kDayMs = 86400000;
// 9999-12-31T23:59:59.999Z
constexpr int64_t kLastMs = 253402300799999;

/** Whether `s[0, n)` is one of `known`'s NUL-ended names. */
bool Known(const uint8_t* known, size_t knownLength, const uint8_t* s, size_t n) {
  size_t i = 0;
  while (i < knownLength) {
    size_t j = i;
    while (j < knownLength && known[j] != 0) j++;
    if (j - i == n && memcmp(known + i, s, n) == 0) return true;
    i = j + 1;
  }
  return false;
}

inline uint8_t* Two(uint8_t* o, int64_t n) {
  o[0] = static_cast<uint8_t>('0' + n / 10);
  o[1] = static_cast<uint8_t>('0' + n % 10);
  return o + 2;
}

/** `new Date(ms).toISOString()` for 0 <= ms <= kLastMs: 24 bytes. */
uint8_t* Iso(uint8_t* o, int64_t ms) {
  int64_t days = ms / kDayMs;
  int64_t t = ms % kDayMs;
  // The civil date of a day count (days since 1970-01-01), in the proleptic Gregorian calendar.
  int64_t z = days + 719468;
  int64_t era = z / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) y++;
  o = Two(o, y / 100);
  o = Two(o, y % 100);
  *o++ = '-';
  o = Two(o, m);
  *o++ = '-';
  o = Two(o, d);
  *o++ = 'T';
  int64_t millis = t % 1000;
  t /= 1000;
  o = Two(o, t / 3600);
  *o++ = ':';
  o = Two(o, (t / 60) % 60);
  *o++ = ':';
  o = Two(o, t % 60);
  *o++ = '.';
  *o++ = static_cast<uint8_t>('0' + millis / 100);
  o = Two(o, millis % 100);
  *o++ = 'Z';
  return o;
}

const char kStatus[] = ",\"status\":\"";
const char kVerdict[] = "\",\"final_verdict\":";
const char kUpdatedAt[] = ",\"updated_at\":\"";

napi_value JsonRows(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc < 11) return Fail(env, "jsonRows: 11 arguments");
  uint8_t *in = nullptr, *out = nullptr, *known = nullptr, *keyBytes = nullptr;
  size_t inLength = 0, outLength = 0, knownLength = 0, keyLength = 0;
  int64_t at = 0, end = 0, outAt = 0, count = 0, statusAfter = 0, updatedAfter = 0;
  if (!Bytes(env, argv[0], &in, &inLength) || !Bytes(env, argv[3], &out, &outLength) ||
      !Bytes(env, argv[6], &known, &knownLength) || !Bytes(env, argv[7], &keyBytes, &keyLength))
    return Fail(env, "jsonRows: input, out, known and keys are Buffers");
  if (!Integer(env, argv[1], &at) || !Integer(env, argv[2], &end) || !Integer(env, argv[4], &outAt) ||
      !Integer(env, argv[5], &count) || !Integer(env, argv[8], &statusAfter) ||
      !Integer(env, argv[9], &updatedAfter))
    return Fail(env, "jsonRows: at, end, outAt, count, statusAfter and updatedAfter are integers");
  size_t resultLength = 0;
  void* resultData = nullptr;
  if (!Typed(env, argv[10], napi_float64_array, 6, &resultData, &resultLength))
    return Fail(env, "jsonRows: result is a Float64Array of 6");
  double* result = static_cast<double*>(resultData);
  if (end > static_cast<int64_t>(inLength) || at > end || outAt > static_cast<int64_t>(outLength))
    return Fail(env, "jsonRows: a range outside its buffer");
  // The keys, and how many bytes they add to a row.
  const uint8_t* key[kMostKeys];
  int64_t keySize[kMostKeys];
  int keys = 0;
  int64_t allKeys = 0;
  for (size_t i = 0; i < keyLength;) {
    size_t j = i;
    while (j < keyLength && keyBytes[j] != 0) j++;
    if (keys == kMostKeys) return Fail(env, "jsonRows: too many keys");
    key[keys] = keyBytes + i;
    keySize[keys] = static_cast<int64_t>(j - i);
    allKeys += keySize[keys];
    keys++;
    i = j + 1;
  }
  if (keys < 1 || statusAfter >= keys || updatedAfter >= keys)
    return Fail(env, "jsonRows: statusAfter and updatedAfter name a key");

  double lastSeq = NAN;
  bool hinted = false;
  int64_t room = 0;
  const uint8_t* cut[kMostKeys];
  const uint8_t* field[5];
  int32_t size[5];
  for (;;) {
    int64_t length = Tuple(in, at, end, 5, field, size);
    if (length == 0) break;
    // status_json: the hint, then one value per key between separators.
    if (size[0] < 1) break;
    const uint8_t* text = field[0];
    const uint8_t* textEnd = text + size[0];
    const uint8_t* from = text + 1;
    int cuts = 0;
    while (cuts < keys) {
      const uint8_t* c = static_cast<const uint8_t*>(memchr(from, kSeparator, textEnd - from));
      if (c == nullptr) break;
      cut[cuts++] = c;
      from = c + 1;
    }
    if (cuts != keys - 1) break;
    cut[cuts] = textEnd;
    if (size[1] < 0 || !Known(known, knownLength, field[1], size[1])) break;
    if (size[2] >= 0 && !Known(known, knownLength, field[2], size[2])) break;
    if (size[3] != 8 || size[4] != 8) break;
    int64_t ms = Int8(field[3]);
    if (ms < 0 || ms > kLastMs) break;
    int64_t need = (count > 0 ? 1 : 0) + allKeys + (size[0] - 1 - (keys - 1)) + (sizeof kStatus - 1) + size[1] +
                   (sizeof kVerdict - 1) + (size[2] < 0 ? 4 : size[2] + 2) + (sizeof kUpdatedAt - 1) + 24 + 1 + 1;
    if (outAt + need > static_cast<int64_t>(outLength)) {
      room = need;
      break;
    }
    uint8_t* o = out + outAt;
    if (count > 0) *o++ = ',';
    const uint8_t* value = text + 1;
    for (int i = 0; i < keys; i++) {
      memcpy(o, key[i], keySize[i]);
      o += keySize[i];
      memcpy(o, value, cut[i] - value);
      o += cut[i] - value;
      value = cut[i] + 1;
      if (i == statusAfter) {
        o = Put(o, kStatus, sizeof kStatus - 1);
        memcpy(o, field[1], size[1]);
        o += size[1];
        o = Put(o, kVerdict, sizeof kVerdict - 1);
        if (size[2] < 0) {
          o = Put(o, "null", 4);
        } else {
          *o++ = '"';
          memcpy(o, field[2], size[2]);
          o += size[2];
          *o++ = '"';
        }
      } else if (i == updatedAfter) {
        o = Put(o, kUpdatedAt, sizeof kUpdatedAt - 1);
        o = Iso(o, ms);
        *o++ = '"';
      }
    }
    *o++ = '}';
    outAt = o - out;
    count++;
    if (text[0] != '0') hinted = true;
    lastSeq = Int8AsNumber(field[4]);
    at += length;
  }
  result[0] = static_cast<double>(at);
  result[1] = static_cast<double>(outAt);
  result[2] = static_cast<double>(count);
  result[3] = lastSeq;
  result[4] = hinted ? 1 : 0;
  result[5] = static_cast<double>(room);
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "jsonRows", NAPI_AUTO_LENGTH, JsonRows, nullptr, &fn);
  napi_set_named_property(env, exports, "jsonRows", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
