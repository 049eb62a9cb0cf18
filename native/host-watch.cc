// Host-side NIOs for the TypeScript engine, which has no ioctl, no AF_PACKET
// and no way to wait on a character device's fd: hostOpen opens a TAP or an
// AF_PACKET socket (host-nio.c), hostWatch runs a thread that polls the fd and
// hands batches of frames to JavaScript, hostWrite sends one frame
// (non-blocking; EAGAIN when the queue is full), hostUnwatch stops the thread
// and closes the fd.
#include <napi.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <thread>
#include <vector>

#include "dp.h"
#include "host-watch.h"

namespace {

// Deliveries queued for JavaScript at most; beyond, a batch is dropped (and counted) rather than buffered without bound.
constexpr size_t kQueue = 256;
constexpr int kFrameMax = 65536;

struct Batch {
  std::vector<std::vector<uint8_t>> frames;
  uint32_t dropped = 0;
};

struct Watch {
  int fd = -1;
  int wake = -1;
  std::atomic<bool> stop{false};
  std::atomic<uint32_t> dropped{0};
  std::thread thread;
  Napi::ThreadSafeFunction tsfn;
  napi_env env = nullptr;
};

// Plain N-API calls whose failures are ignored: a batch can arrive while the worker is being torn
// down (after a crash), when creating values or calling JavaScript fails, and node-addon-api's
// wrappers would turn that failure into a fatal error (exceptions are disabled).
void Deliver(Napi::Env env, Napi::Function callback, Batch *b) {
  if (env != nullptr && callback != nullptr) {
    napi_env e = env;
    napi_value frames, args[2], recv, result;
    bool ok = napi_create_array_with_length(e, b->frames.size(), &frames) == napi_ok;
    for (size_t i = 0; ok && i < b->frames.size(); i++) {
      napi_value frame;
      ok = napi_create_buffer_copy(e, b->frames[i].size(), b->frames[i].data(), nullptr, &frame) == napi_ok &&
           napi_set_element(e, frames, static_cast<uint32_t>(i), frame) == napi_ok;
    }
    ok = ok && napi_create_uint32(e, b->dropped, &args[1]) == napi_ok && napi_get_undefined(e, &recv) == napi_ok;
    if (ok) {
      args[0] = frames;
      napi_call_function(e, recv, callback, 2, args, &result);
    }
  }
  delete b;
}

void Run(Watch *w) {
  std::vector<uint8_t> buf(kFrameMax);
  pollfd fds[2] = {{w->fd, POLLIN, 0}, {w->wake, POLLIN, 0}};
  while (!w->stop.load()) {
    if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if (w->stop.load()) break;
    if (!(fds[0].revents & POLLIN)) continue;
    auto *b = new Batch();
    while (b->frames.size() < DP_BATCH) {
      ssize_t r = read(w->fd, buf.data(), buf.size());
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) break;
      b->frames.emplace_back(buf.begin(), buf.begin() + r);
    }
    if (b->frames.empty()) {
      delete b;
      continue;
    }
    b->dropped = w->dropped.exchange(0);
    if (w->tsfn.NonBlockingCall(b, Deliver) != napi_ok) {
      w->dropped += static_cast<uint32_t>(b->frames.size()) + b->dropped;
      delete b;
    }
  }
}

void StopWatch(Watch *w) {
  w->stop = true;
  uint64_t one = 1;
  ssize_t r = write(w->wake, &one, sizeof one);
  (void)r;
  if (w->thread.joinable()) w->thread.join();
  w->tsfn.Abort();
  close(w->wake);
  close(w->fd);
}

void CleanupWatch(void *arg) {
  auto *w = static_cast<Watch *>(arg);
  StopWatch(w);
  delete w;
}

// hostOpen(kind 1 TAP | 2 AF_PACKET, ifname): the fd, or a negative errno.
Napi::Value HostOpen(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsString()) {
    Napi::TypeError::New(env, "kind and interface name expected").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int fd = -1;
  int kind = info[0].As<Napi::Number>().Int32Value() == DP_HOST_TAP ? DP_HOST_TAP : DP_HOST_ETHERNET;
  int err = dp_host_open(kind, info[1].As<Napi::String>().Utf8Value().c_str(), 0, &fd);
  return Napi::Number::New(env, err ? -err : fd);
}

// hostWatch(fd, onFrames(frames: Buffer[], dropped: number)): a watch handle (External); the fd is the watch's from now on.
Napi::Value HostWatch(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsFunction()) {
    Napi::TypeError::New(env, "fd and callback expected").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto *w = new Watch();
  w->fd = info[0].As<Napi::Number>().Int32Value();
  w->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  w->env = env;
  w->tsfn = Napi::ThreadSafeFunction::New(env, info[1].As<Napi::Function>(), "emuctl-host-nio", kQueue, 1);
  w->tsfn.Unref(env);  // an open host NIO does not keep the worker alive
  w->thread = std::thread(Run, w);
  napi_add_env_cleanup_hook(env, CleanupWatch, w);
  return Napi::External<Watch>::New(env, w);
}

// hostWrite(fd, frame): 0 or an errno.
Napi::Value HostWrite(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Napi::Buffer<uint8_t> frame = info[1].As<Napi::Buffer<uint8_t>>();
  ssize_t w;
  do w = write(info[0].As<Napi::Number>().Int32Value(), frame.Data(), frame.Length());
  while (w < 0 && errno == EINTR);
  return Napi::Number::New(env, w < 0 ? errno : 0);
}

// hostUnwatch(handle): stops the thread and closes the fd (a TAP the dataplane created goes with it).
Napi::Value HostUnwatch(const Napi::CallbackInfo &info) {
  auto *w = info[0].As<Napi::External<Watch>>().Data();
  napi_remove_env_cleanup_hook(w->env, CleanupWatch, w);
  CleanupWatch(w);
  return info.Env().Undefined();
}

}  // namespace

void InitHostWatch(Napi::Env env, Napi::Object exports) {
  exports.Set("hostOpen", Napi::Function::New(env, HostOpen));
  exports.Set("hostWatch", Napi::Function::New(env, HostWatch));
  exports.Set("hostWrite", Napi::Function::New(env, HostWrite));
  exports.Set("hostUnwatch", Napi::Function::New(env, HostUnwatch));
}
