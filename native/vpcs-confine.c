/*
 * LD_PRELOAD shim that confines a VPCS 0.5b2 the daemon starts (Debian's vpcs is dynamically linked):
 * - no host program: system(), popen() and the exec and posix_spawn families fail with EPERM, so the
 *   console's `! <command>` runs nothing;
 * - no file written outside the working directory (the node directory): an open for writing, creating or
 *   truncating of a path that is absolute, contains a `..` component or is a symbolic link fails with
 *   EACCES (`save /etc/x`, `save ../../x`); reading stays allowed;
 * - no socket on every address: bind() to 0.0.0.0 is rewritten to VPCS_CONFINE_TCP_HOST for a TCP socket
 *   (the console) and to VPCS_CONFINE_UDP_HOST for a UDP socket (the tunnel, its companion port, `relay`).
 *   Unset or unparsable, the wildcard is kept.
 * - no TCP console at all when VPCS_CONFINE_CONSOLE_SOCKET names a unix socket (a path relative to the
 *   node directory): the console's TCP socket becomes a listening unix socket there, owner-only, and the
 *   daemon serves the TCP port in front of it through its console guard (see "console socket" below).
 * - a prompt echo (not confinement, a section of its own): each key typed at the console reaches VPCS at once
 *   instead of after its terminal's 100 ms inter-byte timer (see "prompt echo" below).
 * Only the public symbols VPCS calls through its PLT need interposing; glibc's internal calls (forkpty's
 * own opens, for instance) do not go through here.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static void *next_symbol(const char *name) {
  return dlsym(RTLD_NEXT, name);
}

/* ---- no host program ---- */

EXPORT int system(const char *command) {
  (void)command;
  errno = EPERM;
  return -1;
}

EXPORT FILE *popen(const char *command, const char *type) {
  (void)command;
  (void)type;
  errno = EPERM;
  return NULL;
}

#define REFUSE_EXEC(...) \
  do {                   \
    errno = EPERM;       \
    return -1;           \
  } while (0)

EXPORT int execve(const char *p, char *const a[], char *const e[]) { (void)p; (void)a; (void)e; REFUSE_EXEC(); }
EXPORT int execv(const char *p, char *const a[]) { (void)p; (void)a; REFUSE_EXEC(); }
EXPORT int execvp(const char *p, char *const a[]) { (void)p; (void)a; REFUSE_EXEC(); }
EXPORT int execvpe(const char *p, char *const a[], char *const e[]) { (void)p; (void)a; (void)e; REFUSE_EXEC(); }
EXPORT int execl(const char *p, const char *a, ...) { (void)p; (void)a; REFUSE_EXEC(); }
EXPORT int execlp(const char *p, const char *a, ...) { (void)p; (void)a; REFUSE_EXEC(); }
EXPORT int execle(const char *p, const char *a, ...) { (void)p; (void)a; REFUSE_EXEC(); }
EXPORT int fexecve(int fd, char *const a[], char *const e[]) { (void)fd; (void)a; (void)e; REFUSE_EXEC(); }
EXPORT int execveat(int fd, const char *p, char *const a[], char *const e[], int f) { (void)fd; (void)p; (void)a; (void)e; (void)f; REFUSE_EXEC(); }

EXPORT int posix_spawn(pid_t *pid, const char *p, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
                       char *const a[], char *const e[]) {
  (void)pid; (void)p; (void)fa; (void)at; (void)a; (void)e;
  return EPERM;
}

EXPORT int posix_spawnp(pid_t *pid, const char *p, const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *at,
                        char *const a[], char *const e[]) {
  (void)pid; (void)p; (void)fa; (void)at; (void)a; (void)e;
  return EPERM;
}

/* ---- no file written outside the working directory ---- */

static int has_dotdot_component(const char *path) {
  for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
    int starts = p == path || p[-1] == '/';
    int ends = p[2] == '\0' || p[2] == '/';
    if (starts && ends) return 1;
  }
  return 0;
}

static int is_symlink(const char *path) {
  struct stat st;
  return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

/* The terminal devices forkpty and the console relay open read-write. */
static int is_terminal_device(const char *path) {
  if (strcmp(path, "/dev/ptmx") == 0 || strcmp(path, "/dev/tty") == 0 || strcmp(path, "/dev/null") == 0) return 1;
  if (strncmp(path, "/dev/pts/", 9) != 0 || path[9] == '\0') return 0;
  return strspn(path + 9, "0123456789") == strlen(path + 9);
}

/* A write is allowed only to a relative path below the working directory that is not a symbolic link. */
static int write_refused(const char *path) {
  if (path == NULL || path[0] == '\0' || is_terminal_device(path)) return 0;
  if (path[0] == '/' || has_dotdot_component(path) || is_symlink(path)) {
    errno = EACCES;
    return 1;
  }
  return 0;
}

static int writes(int flags) {
  return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

static int mode_writes(const char *mode) {
  return mode != NULL && strpbrk(mode, "wa+") != NULL;
}

static mode_t mode_argument(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef FILE *(*freopen_fn)(const char *, const char *, FILE *);
typedef int (*path_fn)(const char *);
typedef int (*two_path_fn)(const char *, const char *);

#define DEFINE_OPEN(name)                                        \
  EXPORT int name(const char *path, int flags, ...) {            \
    va_list ap;                                                  \
    va_start(ap, flags);                                         \
    mode_t mode = mode_argument(flags, ap);                      \
    va_end(ap);                                                  \
    if (writes(flags) && write_refused(path)) return -1;         \
    return ((open_fn)next_symbol(#name))(path, flags, mode);     \
  }
DEFINE_OPEN(open)
DEFINE_OPEN(open64)

#define DEFINE_OPENAT(name)                                          \
  EXPORT int name(int dirfd, const char *path, int flags, ...) {     \
    va_list ap;                                                      \
    va_start(ap, flags);                                             \
    mode_t mode = mode_argument(flags, ap);                          \
    va_end(ap);                                                      \
    if (writes(flags) && write_refused(path)) return -1;             \
    return ((openat_fn)next_symbol(#name))(dirfd, path, flags, mode); \
  }
DEFINE_OPENAT(openat)
DEFINE_OPENAT(openat64)

EXPORT int creat(const char *path, mode_t mode) {
  if (write_refused(path)) return -1;
  return ((int (*)(const char *, mode_t))next_symbol("creat"))(path, mode);
}

EXPORT int creat64(const char *path, mode_t mode) {
  if (write_refused(path)) return -1;
  return ((int (*)(const char *, mode_t))next_symbol("creat64"))(path, mode);
}

#define DEFINE_FOPEN(name)                                          \
  EXPORT FILE *name(const char *path, const char *mode) {           \
    if (mode_writes(mode) && write_refused(path)) return NULL;      \
    return ((fopen_fn)next_symbol(#name))(path, mode);              \
  }
DEFINE_FOPEN(fopen)
DEFINE_FOPEN(fopen64)

#define DEFINE_FREOPEN(name)                                                \
  EXPORT FILE *name(const char *path, const char *mode, FILE *stream) {     \
    if (mode_writes(mode) && write_refused(path)) return NULL;              \
    return ((freopen_fn)next_symbol(#name))(path, mode, stream);            \
  }
DEFINE_FREOPEN(freopen)
DEFINE_FREOPEN(freopen64)

#define DEFINE_PATH_CHANGE(name)                               \
  EXPORT int name(const char *path) {                          \
    if (write_refused(path)) return -1;                        \
    return ((path_fn)next_symbol(#name))(path);                \
  }
DEFINE_PATH_CHANGE(unlink)
DEFINE_PATH_CHANGE(remove)
DEFINE_PATH_CHANGE(rmdir)

#define DEFINE_TWO_PATH_CHANGE(name)                                     \
  EXPORT int name(const char *from, const char *to) {                    \
    if (write_refused(from) || write_refused(to)) return -1;             \
    return ((two_path_fn)next_symbol(#name))(from, to);                  \
  }
DEFINE_TWO_PATH_CHANGE(rename)
DEFINE_TWO_PATH_CHANGE(link)
DEFINE_TWO_PATH_CHANGE(symlink)

/* ---- no socket on every address ---- */

static int socket_type(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 ? type : -1;
}

/* ---- console socket ----
 * VPCS's console is one TCP socket: socket(), SO_REUSEADDR, bind(0.0.0.0:port), listen(5), then accept()
 * and plain read()/write() on each client (strace of 0.5b2). Its bind() is replaced by a unix socket bound
 * at VPCS_CONFINE_CONSOLE_SOCKET and dup2()ed onto the same fd, so listen() and accept() work unchanged. */
static int bind_console_socket(int fd, const char *path) {
  int (*real_bind)(int, const struct sockaddr *, socklen_t) = next_symbol("bind");
  struct sockaddr_un un;
  memset(&un, 0, sizeof un);
  un.sun_family = AF_UNIX;
  if (strlen(path) >= sizeof un.sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  strcpy(un.sun_path, path);
  int console = socket(AF_UNIX, SOCK_STREAM, 0);
  if (console < 0) return -1;
  mode_t old = umask(077); /* the socket file is the owner's only: connecting needs write permission */
  int rc = real_bind(console, (const struct sockaddr *)&un, sizeof un);
  umask(old);
  if (rc == 0 && dup2(console, fd) < 0) rc = -1;
  int saved = errno;
  close(console);
  errno = saved;
  return rc;
}

EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len) {
  int (*real_bind)(int, const struct sockaddr *, socklen_t) = next_symbol("bind");
  if (addr == NULL || addr->sa_family != AF_INET || len < (socklen_t)sizeof(struct sockaddr_in)) return real_bind(fd, addr, len);
  const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
  int type = socket_type(fd);
  const char *console = getenv("VPCS_CONFINE_CONSOLE_SOCKET");
  if (type == SOCK_STREAM && console != NULL && console[0] != '\0') return bind_console_socket(fd, console);
  if (in->sin_addr.s_addr != htonl(INADDR_ANY)) return real_bind(fd, addr, len);
  const char *host = getenv(type == SOCK_STREAM ? "VPCS_CONFINE_TCP_HOST" : type == SOCK_DGRAM ? "VPCS_CONFINE_UDP_HOST" : "");
  struct sockaddr_in confined = *in;
  if (host == NULL || inet_pton(AF_INET, host, &confined.sin_addr) != 1) return real_bind(fd, addr, len);
  return real_bind(fd, (const struct sockaddr *)&confined, sizeof confined);
}

/* ---- prompt echo ----
 * VPCS's readline puts its terminal (the pty slave, fd 0 of the forked worker) in non-canonical mode
 * with VMIN=3, VTIME=1 so that an arrow key's escape sequence (ESC [ A) comes in one read(). A single
 * key then waits out the 100 ms inter-byte timer before VPCS sees it and echoes it. The worker's
 * tcsetattr() of exactly that mode is rewritten to VMIN=1, VTIME=0 (a read returns what is there), and
 * read() on such a terminal gathers the rest of an escape sequence the old way: when what came starts
 * with ESC and is shorter than 3 bytes, it keeps reading while bytes follow within 100 ms of each other.
 * tcgetattr() reports the mode VPCS set, so a save-and-restore round trip is rewritten again.
 * Every other terminal mode, fd and read passes through unchanged. */

enum { GATHERED_VMIN = 3, GATHERED_VTIME = 1, GATHER_GAP_MS = 100, TRACKED_FDS = 1024 };

static volatile unsigned char key_at_once[TRACKED_FDS];

static int is_gathered_key_mode(const struct termios *t) {
  return !(t->c_lflag & ICANON) && t->c_cc[VMIN] == GATHERED_VMIN && t->c_cc[VTIME] == GATHERED_VTIME;
}

EXPORT int tcsetattr(int fd, int actions, const struct termios *t) {
  int (*real_tcsetattr)(int, int, const struct termios *) = next_symbol("tcsetattr");
  if (fd < 0 || fd >= TRACKED_FDS || t == NULL) return real_tcsetattr(fd, actions, t);
  if (!is_gathered_key_mode(t)) {
    int rc = real_tcsetattr(fd, actions, t);
    if (rc == 0) key_at_once[fd] = 0;
    return rc;
  }
  struct termios at_once = *t;
  at_once.c_cc[VMIN] = 1;
  at_once.c_cc[VTIME] = 0;
  int rc = real_tcsetattr(fd, actions, &at_once);
  if (rc == 0) key_at_once[fd] = 1;
  return rc;
}

EXPORT int tcgetattr(int fd, struct termios *t) {
  int rc = ((int (*)(int, struct termios *))next_symbol("tcgetattr"))(fd, t);
  if (rc == 0 && fd >= 0 && fd < TRACKED_FDS && key_at_once[fd] && t->c_cc[VMIN] == 1 && t->c_cc[VTIME] == 0) {
    t->c_cc[VMIN] = GATHERED_VMIN;
    t->c_cc[VTIME] = GATHERED_VTIME;
  }
  return rc;
}

static int is_escape_prefix(const unsigned char *buf, size_t n) {
  return n > 0 && n < GATHERED_VMIN && buf[0] == 0x1b;
}

typedef ssize_t (*read_fn)(int, void *, size_t);

/* read() is VPCS's console path (relay and prompt): look the real one up once. */
static read_fn real_read(void) {
  static read_fn found;
  read_fn f = __atomic_load_n(&found, __ATOMIC_ACQUIRE);
  if (f == NULL) {
    f = (read_fn)next_symbol("read");
    __atomic_store_n(&found, f, __ATOMIC_RELEASE);
  }
  return f;
}

EXPORT ssize_t read(int fd, void *buf, size_t count) {
  ssize_t n = real_read()(fd, buf, count);
  if (n <= 0 || fd < 0 || fd >= TRACKED_FDS || !key_at_once[fd]) return n;
  if (!is_escape_prefix(buf, (size_t)n)) return n;
  int saved_errno = errno;
  /* isatty: the fd may have been closed and reused since its tcsetattr(). */
  if (!isatty(fd)) {
    errno = saved_errno;
    return n;
  }
  while ((size_t)n < count && is_escape_prefix(buf, (size_t)n)) {
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int ready = poll(&p, 1, GATHER_GAP_MS);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0 || !(p.revents & POLLIN)) break;
    ssize_t more = real_read()(fd, (char *)buf + n, count - (size_t)n);
    if (more <= 0) break;
    n += more;
  }
  errno = saved_errno;
  return n;
}
