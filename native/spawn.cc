// fixpoint's child starter (src/util/native-spawn.ts): posix_spawn instead of Node's fork().
//
// Node starts a child with fork(), which copies the parent's page tables: 2.5 ms from a bare
// Node, 6-8 ms from a worker holding 100 MB, 22 ms at 300 MB (docs/benchmarks.md). glibc's
// posix_spawn shares the parent's memory until the child execs (CLONE_VM | CLONE_VFORK), so a
// start costs the same at any size: about 1 ms for `true` with its stdio on the benchmark
// machine.
//
// spawn(file, argv, env, cwd, newGroup, onExit, input)
//   -> [pid, stdinFd, stdoutFd, stderrFd, written, startTicks]
//   file: a path, or a name looked up in env's PATH (as Node does when given an env);
//   argv: the child's argv, argv[0] included; env: "KEY=value" strings;
//   newGroup: the child leads a process group of its own;
//   onExit(code, signal): called once on the JS thread after the child was reaped (there, never
//     before the JS thread has returned from this call)
//     (code -1 when killed by a signal, signal 0 when it exited);
//   input: a Buffer for the child's stdin. As much of it as the socket takes at once is written
//     here (`written` bytes); when that is all of it, or the child has closed its end already
//     (EPIPE), stdin is closed and stdinFd is -1, else the caller writes the rest to stdinFd and
//     closes it.
//   startTicks: when the child started, in clock ticks since boot, as field 22 of
//     /proc/<pid>/stat reads (the kernel stamps a new process with CLOCK_BOOTTIME; this reads that
//     clock right before and right after posix_spawn, and when both fall in the same tick, that
//     tick is the child's); -1 when they do not (1 to 12 starts in 100 here: the more
//     the longer the program takes to exec), or without the clock.
//     Reading the child's /proc/<pid>/stat instead cost 60-140 µs (median 83) of every agent's
//     start on the benchmark machine.
// Throws an Error with `code` (ENOENT, EACCES, ...) and `errno` when the child cannot start.
// The returned descriptors are this process's ends of the child's stdio sockets, close-on-exec.

#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

struct Exit {
  pid_t pid;
  int code;
  int signal;
};

// CLOCK_BOOTTIME in clock ticks (what /proc/<pid>/stat counts a process's start in); -1 without it.
double BootTicks() {
  static const long perSecond = sysconf(_SC_CLK_TCK);
  struct timespec ts;
  if (perSecond <= 0 || clock_gettime(CLOCK_BOOTTIME, &ts) != 0) return -1;
  long long ns = static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
  return static_cast<double>(ns / (1000000000LL / perSecond));
}

// Reaps `pid`, a child that has ended (a zombie): at once.
void Reap(pid_t pid) {
  pid_t r;
  do r = waitpid(pid, nullptr, 0);
  while (r < 0 && errno == EINTR);
}

napi_value Throw(napi_env env, int err, const std::string& what) {
  napi_value msg, code, errnum, error;
  std::string text = what + " " + strerror(err);
  napi_create_string_utf8(env, text.c_str(), text.size(), &msg);
  const char* name = nullptr;
  switch (err) {
    case ENOENT: name = "ENOENT"; break;
    case EACCES: name = "EACCES"; break;
    case ENOTDIR: name = "ENOTDIR"; break;
    case E2BIG: name = "E2BIG"; break;
    case ENOMEM: name = "ENOMEM"; break;
    case EMFILE: name = "EMFILE"; break;
    case ENFILE: name = "ENFILE"; break;
    case EAGAIN: name = "EAGAIN"; break;
    case ENOEXEC: name = "ENOEXEC"; break;
    case EPERM: name = "EPERM"; break;
    case ELOOP: name = "ELOOP"; break;
    case ENAMETOOLONG: name = "ENAMETOOLONG"; break;
    default: name = "EUNKNOWN"; break;
  }
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_int32(env, -err, &errnum);
  napi_create_error(env, code, msg, &error);
  napi_set_named_property(env, error, "errno", errnum);
  napi_throw(env, error);
  return nullptr;
}

bool GetString(napi_env env, napi_value v, std::string* out) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, nullptr, 0, &len) != napi_ok) return false;
  out->resize(len + 1);
  size_t written = 0;
  if (napi_get_value_string_utf8(env, v, &(*out)[0], len + 1, &written) != napi_ok) return false;
  out->resize(written);
  return true;
}

bool GetStrings(napi_env env, napi_value arr, std::vector<std::string>* out) {
  uint32_t n = 0;
  if (napi_get_array_length(env, arr, &n) != napi_ok) return false;
  out->resize(n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value item;
    if (napi_get_element(env, arr, i, &item) != napi_ok || !GetString(env, item, &(*out)[i])) return false;
  }
  return true;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  p.reserve(strings.size() + 1);
  for (auto& s : strings) p.push_back(&s[0]);
  p.push_back(nullptr);
  return p;
}

bool Executable(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The path to execute: `file` itself when it names a path, else the first executable regular
// file called `file` in the PATH of the child's environment (the default path without one),
// relative entries taken from the child's folder `cwd`.
// Sets *err to ENOENT or EACCES when there is none.
std::string Resolve(const std::string& file, const std::vector<std::string>& env, const std::string& cwd,
                    int* err) {
  *err = 0;
  if (file.find('/') != std::string::npos) return file;
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& kv : env)
    if (kv.compare(0, 5, "PATH=") == 0) {
      path = kv.substr(5);
      break;
    }
  bool denied = false;
  size_t start = 0;
  for (;;) {
    size_t end = path.find(':', start);
    std::string dir = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    // A relative entry is relative to the child's folder, as it is for a fork that changes
    // folder and then looks the program up.
    std::string base = dir.empty() ? std::string(".") : dir;
    if (base[0] != '/') base = cwd + "/" + base;
    std::string full = base + "/" + file;
    if (Executable(full)) return full;
    if (access(full.c_str(), F_OK) == 0) denied = true;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  *err = denied ? EACCES : ENOENT;
  return file;
}

// On the JS thread: reaps the ended child, then reports its end. The child is reaped only here,
// after the JS thread has returned from spawn() and run what it does on a start (reading the
// leader's start time from /proc/<pid>/stat to record its process group): reaped earlier, by the
// watcher thread, a child that exits at once could be gone from /proc before that read.
void CallExit(napi_env env, napi_value js_cb, void*, void* data) {
  Exit* exit = static_cast<Exit*>(data);
  Reap(exit->pid);
  if (env != nullptr && js_cb != nullptr) {
    napi_value argv[2], undefined;
    napi_create_int32(env, exit->code, &argv[0]);
    napi_create_int32(env, exit->signal, &argv[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, js_cb, 2, argv, nullptr);
  }
  delete exit;
}

struct Watch {
  pid_t pid;
  napi_threadsafe_function tsfn;
};

// The body of a child's watcher thread: waits for the child's end without reaping it (WNOWAIT),
// and hands the end to the JS thread, which reaps it (CallExit).
void* WaitForExit(void* arg) {
  Watch* watch = static_cast<Watch*>(arg);
  siginfo_t info;
  memset(&info, 0, sizeof info);
  int r;
  do r = waitid(P_PID, static_cast<id_t>(watch->pid), &info, WEXITED | WNOWAIT);
  while (r < 0 && errno == EINTR);
  Exit* exit = new Exit{watch->pid, -1, 0};
  if (r == 0) {
    if (info.si_code == CLD_EXITED) exit->code = info.si_status;
    else if (info.si_code == CLD_KILLED || info.si_code == CLD_DUMPED) exit->signal = info.si_status;
  }
  if (napi_call_threadsafe_function(watch->tsfn, exit, napi_tsfn_blocking) != napi_ok) {
    // The JS thread is going away: nobody will reap it there.
    Reap(exit->pid);
    delete exit;
  }
  napi_release_threadsafe_function(watch->tsfn, napi_tsfn_release);
  delete watch;
  return nullptr;
}

napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value args[7];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  std::string file, cwd;
  std::vector<std::string> argv, envv;
  bool newGroup = false;
  void* input = nullptr;
  size_t inputLength = 0;
  if (argc < 7 || !GetString(env, args[0], &file) || !GetStrings(env, args[1], &argv) ||
      !GetStrings(env, args[2], &envv) || !GetString(env, args[3], &cwd) ||
      napi_get_value_bool(env, args[4], &newGroup) != napi_ok ||
      napi_get_buffer_info(env, args[6], &input, &inputLength) != napi_ok) {
    napi_throw_type_error(env, nullptr, "spawn(file, argv, env, cwd, newGroup, onExit, input)");
    return nullptr;
  }
  int err = 0;
  // A missing or unreadable working directory is the caller's to hear about, not the child's.
  struct stat st;
  if (stat(cwd.c_str(), &st) != 0) {
    int e = errno;
    return Throw(env, e, "spawn " + file + " in " + cwd);
  }
  if (!S_ISDIR(st.st_mode)) return Throw(env, ENOTDIR, "spawn " + file + " in " + cwd);
  std::string exe = Resolve(file, envv, cwd, &err);
  if (err != 0) return Throw(env, err, "spawn " + file);

  int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1};
  auto closeAll = [&]() {
    for (int fd : {in[0], in[1], out[0], out[1], errp[0], errp[1]})
      if (fd >= 0) close(fd);
  };
  // Sockets, as libuv gives a child of Node's spawn; [0] is the child's end, [1] ours.
  auto pair = [](int fds[2]) { return socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0; };
  if (!pair(in) || !pair(out) || !pair(errp)) {
    int e = errno;
    closeAll();
    return Throw(env, e, "spawn " + file + ": socketpair");
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[0], 1);
  posix_spawn_file_actions_adddup2(&actions, errp[0], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  // Only its stdio: a descriptor this process inherited without close-on-exec (a terminal
  // multiplexer's, a CI runner's) does not reach an agent. Node's spawn passes those on.
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (newGroup) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  // The child starts as a child of a shell would: nothing blocked, and the signals Node ignores
  // (SIGPIPE) back to their defaults, as libuv does for its children.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);

  std::vector<char*> cargv = Pointers(argv);
  std::vector<char*> cenv = Pointers(envv);
  pid_t pid = 0;
  double before = BootTicks();
  int rc = posix_spawn(&pid, exe.c_str(), &actions, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  double after = BootTicks();
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    closeAll();
    return Throw(env, rc, "spawn " + file);
  }
  close(in[0]);
  close(out[0]);
  close(errp[0]);

  // The input, as far as the socket's buffer takes it without waiting (a prompt usually fits):
  // no stream to set up for it. A child that exited already (or closed its stdin) gets EPIPE,
  // which is no failure here: nobody will read the rest, so stdin is closed as when all of it
  // went (a stream made for it would only meet the same EPIPE, as an error object with a stack).
  size_t written = 0;
  bool readerGone = false;
  while (written < inputLength) {
    ssize_t n = send(in[1], static_cast<char*>(input) + written, inputLength - written, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) written += static_cast<size_t>(n);
    else if (n < 0 && errno == EINTR) continue;
    else {
      readerGone = n < 0 && (errno == EPIPE || errno == ECONNRESET);
      break;
    }
  }
  int stdinFd = in[1];
  if (written == inputLength || readerGone) {
    close(in[1]);
    stdinFd = -1;
  }

  // A child that cannot be watched is stopped and reaped here rather than left unwatched, and
  // our ends of its stdio are closed.
  auto abandon = [&]() {
    kill(pid, SIGKILL);
    Reap(pid);
    if (stdinFd >= 0) close(stdinFd);
    close(out[1]);
    close(errp[1]);
  };
  napi_threadsafe_function tsfn;
  napi_value name;
  napi_create_string_utf8(env, "fixpoint-child-exit", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, args[5], nullptr, name, 0, 1, nullptr, nullptr, nullptr, CallExit,
                                      &tsfn) != napi_ok) {
    // Cannot happen short of running out of memory; the child is already running.
    abandon();
    return Throw(env, ENOMEM, "spawn " + file + ": watcher");
  }
  // One thread per child waits for its end: it blocks only itself, never the thread pool.
  Watch* watch = new Watch{pid, tsfn};
  pthread_t thread;
  if (pthread_create(&thread, nullptr, WaitForExit, watch) != 0) {
    // No thread to be had (a process at its limit): the caller hears that it could not start.
    delete watch;
    napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
    abandon();
    return Throw(env, EAGAIN, "spawn " + file + ": watcher thread");
  }
  pthread_detach(thread);

  napi_value result, v;
  napi_create_array_with_length(env, 6, &result);
  double startTicks = before >= 0 && before == after ? before : -1;
  double values[6] = {static_cast<double>(pid), static_cast<double>(stdinFd), static_cast<double>(out[1]),
                      static_cast<double>(errp[1]), static_cast<double>(written), startTicks};
  for (uint32_t i = 0; i < 6; i++) {
    napi_create_double(env, values[i], &v);
    napi_set_element(env, result, i, v);
  }
  return result;
}

// probeGroup(pgid): kill(-pgid, 0)'s answer as a number, 0 when the group has a member and the
// errno otherwise (ESRCH: none; EPERM: one this process may not signal). The usual answer after a
// child ended is ESRCH, which Node's process.kill reports by building and throwing an error: 30 µs
// of every agent's and git command's end on the JS thread, against 3 µs for this.
napi_value ProbeGroup(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value args[1];
  napi_get_cb_info(env, info, &argc, args, nullptr, nullptr);
  int32_t pgid = 0;
  // kill(-1, …) means every process this one may signal: no group has id 1 or less to ask about.
  if (argc < 1 || napi_get_value_int32(env, args[0], &pgid) != napi_ok || pgid <= 1) {
    napi_throw_type_error(env, nullptr, "probeGroup(pgid): a process group id above 1");
    return nullptr;
  }
  int answer = kill(-pgid, 0) == 0 ? 0 : errno;
  napi_value out;
  napi_create_int32(env, answer, &out);
  return out;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, Spawn, nullptr, &fn);
  napi_set_named_property(env, exports, "spawn", fn);
  napi_create_function(env, "probeGroup", NAPI_AUTO_LENGTH, ProbeGroup, nullptr, &fn);
  napi_set_named_property(env, exports, "probeGroup", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
