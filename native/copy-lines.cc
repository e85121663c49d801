// `fixpoint status`'s lines from PostgreSQL's binary COPY, written in C++
// (src/store/postgres/native-line-rows.ts). The JavaScript reader (task-line-page.ts) does the
// same and remains the reference; this writes the rows it is certain of, the same bytes, and
// leaves every other row to it: a listing's first pages cost that reader about 90 ms in V8's
// interpreter at 100,000 tasks (docs/benchmarks.md).
//
// lineRows(input, at, end, out, outAt, count, table, secrets, idAt, idLength, result)
//   input[at, end): protocol messages; out: the page's buffer, written from outAt; count: the
//     lines already in it;
//   table: what a line is made of, built once by task-line-page.ts (NUL-ended texts and
//     numbers, in the order Parse reads them);
//   secrets: the printing process's secret values, each NUL-ended (an environment's values hold
//     no NUL): a row holding one in its title, reason or stage, or in the text its reason is
//     joined into, is left (the table hides them);
//   idAt, idLength (Int32Array): where each line's id is written and its length, from index
//     count on;
//   result (Float64Array of 7): where it stopped in input, where in out, the count, the last
//     row's seq (NaN when it wrote none), the longest and the shortest id it wrote (-1 when
//     none), and why it stopped: 0 for a message it leaves, 1 for room in out, 2 for room in
//     idAt.
// A row it leaves: a token hint that is not `0`, a type, status or verdict it does not know, a
// non-ASCII id, stage, parent or reason, a title with a character outside the Basic
// Multilingual Plane, a secret value, a cost it cannot print as toFixed(2) does, or any field of
// another size.

#include <stdio.h>

#include "copy-rows.h"

namespace {

using copy_rows::Bytes;
using copy_rows::Fail;
using copy_rows::Int4;
using copy_rows::Int8AsNumber;
using copy_rows::Integer;
using copy_rows::Tuple;
using copy_rows::Typed;

constexpr int kFields = 13;
constexpr int kMost = 32;

struct Text {
  const uint8_t* p = nullptr;
  size_t n = 0;
};

/** The line's pieces, read from `table` in this order. */
struct Table {
  const uint8_t* source = nullptr;
  size_t length = 0;
  int types = 0, statuses = 0, verdicts = 0;
  Text type[kMost], typeCell[kMost];
  Text status[kMost], mark[kMost], statusCell[kMost];
  Text verdict[kMost], kind[kMost];
  bool approved[kMost];
  Text markUnapproved, waiting, waitingAt, failedText, colon, dot, soFar, cycle, cycleOne, cycles, from, why,
      ellipsis, twoSpaces;
  int running = -1, completed = -1, needsHuman = -1, failed = -1;
  int titleWidth = 0, reasonWidth = 0, lineRoom = 0;
  // The fields' places in a tuple.
  int fSeq, fId, fType, fTitle, fStatus, fVerdict, fReason, fCycle, fMaxCycles, fStage, fParent, fCost, fHint;
};

/** Reads `table`'s NUL-ended entries; false when it is not one native-line-rows.ts wrote. */
class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool Next(Text* t) {
    if (i_ >= n_) return false;
    size_t j = i_;
    while (j < n_ && p_[j] != 0) j++;
    if (j >= n_) return false;
    t->p = p_ + i_;
    t->n = j - i_;
    i_ = j + 1;
    return true;
  }
  bool Number(int* v) {
    Text t;
    if (!Next(&t) || t.n == 0 || t.n > 6) return false;
    int r = 0;
    for (size_t k = 0; k < t.n; k++) {
      if (t.p[k] < '0' || t.p[k] > '9') return false;
      r = r * 10 + (t.p[k] - '0');
    }
    *v = r;
    return true;
  }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

bool Parse(const uint8_t* p, size_t n, Table* t) {
  Reader r(p, n);
  if (!r.Number(&t->types) || t->types > kMost) return false;
  for (int i = 0; i < t->types; i++)
    if (!r.Next(&t->type[i]) || !r.Next(&t->typeCell[i])) return false;
  if (!r.Number(&t->statuses) || t->statuses > kMost) return false;
  for (int i = 0; i < t->statuses; i++)
    if (!r.Next(&t->status[i]) || !r.Next(&t->mark[i]) || !r.Next(&t->statusCell[i])) return false;
  if (!r.Number(&t->verdicts) || t->verdicts > kMost) return false;
  for (int i = 0; i < t->verdicts; i++) {
    Text flag;
    if (!r.Next(&t->verdict[i]) || !r.Next(&t->kind[i]) || !r.Next(&flag) || flag.n != 1) return false;
    t->approved[i] = flag.p[0] == '1';
  }
  Text* texts[] = {&t->markUnapproved, &t->waiting, &t->waitingAt, &t->failedText, &t->colon,
                   &t->dot,            &t->soFar,   &t->cycle,     &t->cycleOne,   &t->cycles,
                   &t->from,           &t->why,     &t->ellipsis,  &t->twoSpaces};
  for (Text* text : texts)
    if (!r.Next(text)) return false;
  int* numbers[] = {&t->running,    &t->completed,   &t->needsHuman, &t->failed,    &t->titleWidth,
                    &t->reasonWidth, &t->lineRoom,   &t->fSeq,       &t->fId,       &t->fType,
                    &t->fTitle,     &t->fStatus,     &t->fVerdict,   &t->fReason,   &t->fCycle,
                    &t->fMaxCycles, &t->fStage,      &t->fParent,    &t->fCost,     &t->fHint};
  for (int* number : numbers)
    if (!r.Number(number)) return false;
  int fields[] = {t->fSeq,    t->fId,       t->fType,  t->fTitle,  t->fStatus, t->fVerdict, t->fReason,
                  t->fCycle,  t->fMaxCycles, t->fStage, t->fParent, t->fCost,   t->fHint};
  for (int f : fields)
    if (f < 0 || f >= kFields) return false;
  return t->titleWidth > 1 && t->reasonWidth > 1;
}

/** The index of `s[0, n)` in `list`, or -1. */
int Which(const Text* list, int count, const uint8_t* s, int32_t n) {
  if (n < 0) return -1;
  for (int i = 0; i < count; i++)
    if (list[i].n == static_cast<size_t>(n) && memcmp(list[i].p, s, n) == 0) return i;
  return -1;
}

bool Ascii(const uint8_t* s, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    if (s[i] >= 0x80) return false;
  return true;
}

inline uint8_t* Put(uint8_t* o, const Text& t) { return copy_rows::Put(o, t.p, t.n); }

/** Whether s[0, n) holds one of `secrets`' NUL-ended values. */
bool HoldsSecret(const uint8_t* s, size_t n, const uint8_t* secrets, size_t length) {
  for (size_t i = 0; i < length;) {
    size_t j = i;
    while (j < length && secrets[j] != 0) j++;
    size_t k = j - i;
    if (k > 0 && k <= n)
      for (size_t at = 0; at + k <= n; at++)
        if (s[at] == secrets[i] && memcmp(s + at, secrets + i, k) == 0) return true;
    i = j + 1;
  }
  return false;
}

/** String(n) of a 32-bit integer. */
uint8_t* WriteInt(uint8_t* o, int64_t n) {
  if (n < 0) {
    *o++ = '-';
    n = -n;
  }
  char digits[24];
  int k = snprintf(digits, sizeof digits, "%lld", static_cast<long long>(n));
  return copy_rows::Put(o, reinterpret_cast<const uint8_t*>(digits), k);
}

/**
 * `$` and usd.toFixed(2), for 0 < usd < 1e15: the integer number of cents closest to usd * 100
 * exactly, the larger on a tie (ECMAScript's Number.prototype.toFixed). printf rounds the exact
 * value too, but a tie to even: the ties are the amounts whose eighths are whole and odd.
 * Returns nullptr when it cannot.
 */
uint8_t* Money(uint8_t* o, double usd) {
  if (!(usd > 0) || usd >= 1e15) return nullptr;
  char text[48];
  double eighths = usd * 8;
  int k;
  if (eighths == std::floor(eighths) && std::fmod(eighths, 2) == 1) {
    // usd * 100 is exact here (a multiple of 12.5 below 2^53).
    long long cents = static_cast<long long>(std::floor(usd * 100)) + 1;
    k = snprintf(text, sizeof text, "$%lld.%02lld", cents / 100, cents % 100);
  } else {
    k = snprintf(text, sizeof text, "$%.2f", usd);
  }
  if (k <= 0 || k >= static_cast<int>(sizeof text)) return nullptr;
  return copy_rows::Put(o, reinterpret_cast<const uint8_t*>(text), k);
}

/**
 * format.ts truncate: src[0, n) written at `o` whole when it has `max` characters or fewer, else
 * its first `max - 1` and the ellipsis; with `pad`, spaces up to `max` characters. `src` may
 * be `o` itself. nullptr for a character outside the Basic Multilingual Plane.
 */
uint8_t* Cut(const uint8_t* src, size_t n, uint8_t* o, int max, bool pad, const Text& ellipsis) {
  int chars = 0;
  size_t keep = n;
  for (size_t i = 0; i < n; i++) {
    uint8_t b = src[i];
    if (b >= 0xf0) return nullptr;
    if ((b & 0xc0) == 0x80) continue;
    if (chars == max - 1) keep = i;
    chars++;
  }
  if (chars <= max) {
    if (src != o) memmove(o, src, n);
    o += n;
    if (pad)
      for (int i = chars; i < max; i++) *o++ = ' ';
    return o;
  }
  if (src != o) memmove(o, src, keep);
  return Put(o + keep, ellipsis);
}

inline bool Space(uint8_t b) { return b == ' ' || (b >= 0x09 && b <= 0x0d); }

/** attention.ts taskReason's fold of an ASCII text: each run of white space one space, none at either end. */
uint8_t* Fold(const uint8_t* s, int32_t n, uint8_t* o) {
  uint8_t* start = o;
  bool space = false;
  for (int32_t i = 0; i < n; i++) {
    if (Space(s[i])) {
      space = o > start;
    } else {
      if (space) *o++ = ' ';
      space = false;
      *o++ = s[i];
    }
  }
  return o;
}

Table table;

napi_value LineRows(napi_env env, napi_callback_info info) {
  size_t argc = 11;
  napi_value argv[11];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc < 11) return Fail(env, "lineRows: 11 arguments");
  uint8_t *in = nullptr, *out = nullptr, *tableBytes = nullptr, *secrets = nullptr;
  size_t inLength = 0, outLength = 0, tableLength = 0, secretsLength = 0;
  int64_t at = 0, end = 0, outAt = 0, count = 0;
  if (!Bytes(env, argv[0], &in, &inLength) || !Bytes(env, argv[3], &out, &outLength) ||
      !Bytes(env, argv[6], &tableBytes, &tableLength) || !Bytes(env, argv[7], &secrets, &secretsLength))
    return Fail(env, "lineRows: input, out, table and secrets are Buffers");
  if (!Integer(env, argv[1], &at) || !Integer(env, argv[2], &end) || !Integer(env, argv[4], &outAt) ||
      !Integer(env, argv[5], &count))
    return Fail(env, "lineRows: at, end, outAt and count are integers");
  size_t idsLength = 0, idLengthsLength = 0, resultLength = 0;
  void *idAtData = nullptr, *idLengthData = nullptr, *resultData = nullptr;
  if (!Typed(env, argv[8], napi_int32_array, 0, &idAtData, &idsLength) ||
      !Typed(env, argv[9], napi_int32_array, 0, &idLengthData, &idLengthsLength) ||
      !Typed(env, argv[10], napi_float64_array, 7, &resultData, &resultLength))
    return Fail(env, "lineRows: idAt and idLength are Int32Arrays, result a Float64Array of 7");
  int32_t* idAt = static_cast<int32_t*>(idAtData);
  int32_t* idLength = static_cast<int32_t*>(idLengthData);
  double* result = static_cast<double*>(resultData);
  if (end > static_cast<int64_t>(inLength) || at > end || outAt > static_cast<int64_t>(outLength))
    return Fail(env, "lineRows: a range outside its buffer");
  if (table.source != tableBytes || table.length != tableLength) {
    Table parsed;
    if (!Parse(tableBytes, tableLength, &parsed)) return Fail(env, "lineRows: not a table native-line-rows.ts wrote");
    parsed.source = tableBytes;
    parsed.length = tableLength;
    table = parsed;
  }
  const Table& t = table;
  size_t ids = idsLength < idLengthsLength ? idsLength : idLengthsLength;

  double lastSeq = NAN;
  int64_t widest = -1, narrowest = -1;
  int stop = 0;
  const uint8_t* f[kFields];
  int32_t z[kFields];
  for (;;) {
    int64_t length = Tuple(in, at, end, kFields, f, z);
    if (length == 0) break;
    // Rows the JavaScript reader writes, or leaves to the CLI (see the header).
    if (z[t.fHint] != 1 || f[t.fHint][0] != '0') break;
    int type = Which(t.type, t.types, f[t.fType], z[t.fType]);
    int status = Which(t.status, t.statuses, f[t.fStatus], z[t.fStatus]);
    int verdict = Which(t.verdict, t.verdicts, f[t.fVerdict], z[t.fVerdict]);
    if (type < 0 || status < 0 || (verdict < 0 && z[t.fVerdict] >= 0)) break;
    if (z[t.fCycle] != 4 || z[t.fMaxCycles] != 4 || z[t.fCost] != 8 || z[t.fSeq] != 8 || z[t.fId] < 0) break;
    int32_t title = z[t.fTitle] < 0 ? 0 : z[t.fTitle];
    int32_t reason = z[t.fReason] < 0 ? 0 : z[t.fReason];
    int32_t stage = z[t.fStage] < 0 ? 0 : z[t.fStage];
    int32_t parent = z[t.fParent] < 0 ? 0 : z[t.fParent];
    if (!Ascii(f[t.fId], z[t.fId]) || !Ascii(f[t.fReason], reason) || !Ascii(f[t.fStage], stage) ||
        !Ascii(f[t.fParent], parent))
      break;
    if (secretsLength > 0 && (HoldsSecret(f[t.fTitle], title, secrets, secretsLength) ||
                              HoldsSecret(f[t.fReason], reason, secrets, secretsLength) ||
                              HoldsSecret(f[t.fStage], stage, secrets, secretsLength)))
      break;
    uint64_t costBits = static_cast<uint64_t>(copy_rows::Int8(f[t.fCost]));
    double cost;
    memcpy(&cost, &costBits, sizeof cost);
    if (std::isnan(cost) || cost >= 1e15) break;
    int64_t need = t.lineRoom + z[t.fId] + title + parent + 2 * (stage + reason);
    if (outAt + need > static_cast<int64_t>(outLength)) {
      stop = 1;
      break;
    }
    if (static_cast<size_t>(count) >= ids) {
      stop = 2;
      break;
    }
    uint8_t* line = out + outAt;
    uint8_t* o = line;
    bool unapproved = status == t.completed && verdict >= 0 && !t.approved[verdict];
    o = Put(o, unapproved ? t.markUnapproved : t.mark[status]);
    idAt[count] = static_cast<int32_t>(o - out);
    idLength[count] = z[t.fId];
    o = copy_rows::Put(o, f[t.fId], z[t.fId]);
    o = Put(o, t.typeCell[type]);
    o = Cut(f[t.fTitle], title, o, t.titleWidth, true, t.ellipsis);
    if (o == nullptr) break;
    o = Put(o, t.statusCell[status]);
    if (status == t.running) {
      o = Put(o, t.cycle);
      o = WriteInt(o, Int4(f[t.fCycle]));
      *o++ = '/';
      o = WriteInt(o, Int4(f[t.fMaxCycles]));
      if (stage > 0) o = copy_rows::Put(Put(o, t.dot), f[t.fStage], stage);
      if (cost > 0) {
        o = Money(Put(o, t.dot), cost);
        if (o == nullptr) break;
        o = Put(o, t.soFar);
      }
    } else {
      if (verdict >= 0) {
        int64_t cycle = Int4(f[t.fCycle]);
        o = Put(o, t.verdict[verdict]);
        *o++ = ' ';
        *o++ = '(';
        o = Put(WriteInt(o, cycle), cycle == 1 ? t.cycleOne : t.cycles);
        if (cost > 0) {
          o = Money(Put(o, t.twoSpaces), cost);
          if (o == nullptr) break;
        }
        if (parent > 0) o = copy_rows::Put(Put(Put(o, t.twoSpaces), t.from), f[t.fParent], parent);
      } else if (parent > 0) {
        o = copy_rows::Put(Put(o, t.from), f[t.fParent], parent);
      }
      uint8_t* why = o;
      uint8_t* text = Put(o, t.why);
      o = text;
      if (status == t.needsHuman) {
        if (verdict >= 0)
          o = Put(o, t.kind[verdict]);
        else if (stage > 0)
          o = copy_rows::Put(Put(o, t.waitingAt), f[t.fStage], stage);
        else
          o = Put(o, t.waiting);
      } else if (status == t.failed) {
        o = Put(o, t.failedText);
      }
      uint8_t* kindEnd = o;
      uint8_t* folded = kindEnd > text ? kindEnd + t.colon.n : kindEnd;
      uint8_t* foldedEnd = Fold(f[t.fReason], reason, folded);
      if (foldedEnd > folded) {
        if (kindEnd > text) Put(kindEnd, t.colon);
        o = foldedEnd;
      }
      if (o == text) {
        o = why;
      } else {
        // The reason as the line joins it to its kind: folding can make a secret value whole.
        if (secretsLength > 0 && HoldsSecret(text, o - text, secrets, secretsLength)) break;
        o = Cut(text, o - text, text, t.reasonWidth, false, t.ellipsis);
        if (o == nullptr) break;
      }
      // String.prototype.trimEnd: what can end the line here is ASCII or the ellipsis.
      if (verdict < 0)
        while (o > line && Space(o[-1])) o--;
    }
    *o++ = '\n';
    outAt = o - out;
    int64_t id = z[t.fId];
    if (widest < 0 || id > widest) widest = id;
    if (narrowest < 0 || id < narrowest) narrowest = id;
    lastSeq = Int8AsNumber(f[t.fSeq]);
    count++;
    at += length;
  }
  result[0] = static_cast<double>(at);
  result[1] = static_cast<double>(outAt);
  result[2] = static_cast<double>(count);
  result[3] = lastSeq;
  result[4] = static_cast<double>(widest);
  result[5] = static_cast<double>(narrowest);
  result[6] = static_cast<double>(stop);
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "lineRows", NAPI_AUTO_LENGTH, LineRows, nullptr, &fn);
  napi_set_named_property(env, exports, "lineRows", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
