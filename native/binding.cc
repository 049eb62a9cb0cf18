// N-API surface of the native dataplane (node-addon-api). Control calls
// only: frames never cross into JavaScript. Nodes are numbered handles; each
// call takes the mutex of the engine thread that owns the node. Errors of
// the system (bind, connect, open) are returned as errno numbers for the
// TypeScript side to word; a bad argument throws a TypeError.
#include <napi.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dp.h"
#include "host-watch.h"

namespace {

struct Runtime {
  std::vector<dp_engine *> engines;
  std::vector<dp_node *> nodes;  // by handle; nullptr = free
};

class Locked {
 public:
  explicit Locked(dp_engine *e) : e_(e) { pthread_mutex_lock(&e_->lock); }
  ~Locked() { pthread_mutex_unlock(&e_->lock); }

 private:
  dp_engine *e_;
};

void FreePort(dp_engine *e, dp_port *p) {
  if (p->capture) dp_pcap_close(p->capture);
  p->capture = nullptr;
  dp_nio_close(e, p);
  if (p->filters) dp_filters_free(p->filters, &p->c);
  p->filters = nullptr;
  dp_timed_remove(e, p);
  free(p);
}

void UpdateTimed(dp_engine *e, dp_port *p) {
  if (p->capture || (p->filters && dp_filters_timed(p->filters))) dp_timed_add(e, p);
  else dp_timed_remove(e, p);
}

void DestroyNode(Runtime *rt, dp_node *n) {
  dp_engine *e = n->eng;
  {
    Locked lock(e);
    for (uint32_t i = 0; i < n->nports; i++) dp_nio_close(e, n->ports[i]);
    for (uint32_t i = 0; i < n->nports; i++) FreePort(e, n->ports[i]);
    dp_node **at = &e->nodes;
    while (*at && *at != n) at = &(*at)->next;
    if (*at) *at = n->next;
    e->nnodes--;
  }
  rt->nodes[n->handle] = nullptr;
  dp_mac_free(&n->macs);
  free(n->ports);
  free(n->active);
  free(n);
}

void Shutdown(Runtime *rt) {
  for (dp_node *n : rt->nodes)
    if (n) DestroyNode(rt, n);
  rt->nodes.clear();
  for (dp_engine *e : rt->engines) {
    dp_engine_stop(e);
    pthread_mutex_destroy(&e->lock);
    free(e);
  }
  rt->engines.clear();
}

// Runs when the environment (the worker thread) goes away, crash included: threads stopped, sockets and captures closed.
void FinalizeRuntime(Napi::Env, Runtime *rt) {
  Shutdown(rt);
  delete rt;
}

Runtime *RuntimeOf(const Napi::Env &env) {
  Runtime *rt = env.GetInstanceData<Runtime>();
  if (!rt) {
    rt = new Runtime();
    env.SetInstanceData<Runtime, FinalizeRuntime>(rt);
  }
  return rt;
}

bool Fail(const Napi::Env &env, const char *message) {
  Napi::TypeError::New(env, message).ThrowAsJavaScriptException();
  return false;
}

dp_node *NodeArg(const Napi::CallbackInfo &info, size_t i) {
  Runtime *rt = RuntimeOf(info.Env());
  if (info.Length() <= i || !info[i].IsNumber()) return Fail(info.Env(), "node handle expected"), nullptr;
  uint32_t h = info[i].As<Napi::Number>().Uint32Value();
  if (h >= rt->nodes.size() || !rt->nodes[h]) return Fail(info.Env(), "no such native node"), nullptr;
  return rt->nodes[h];
}

dp_port *FindPort(dp_node *n, int32_t number) {
  for (uint32_t i = 0; i < n->nports; i++)
    if (n->ports[i]->number == number) return n->ports[i];
  return nullptr;
}

dp_port *PortArg(const Napi::CallbackInfo &info, dp_node *n, size_t i) {
  if (!n) return nullptr;
  if (info.Length() <= i || !info[i].IsNumber()) return Fail(info.Env(), "port number expected"), nullptr;
  dp_port *p = FindPort(n, info[i].As<Napi::Number>().Int32Value());
  if (!p) Fail(info.Env(), "no such port on the native node");
  return p;
}

Napi::Value Start(const Napi::CallbackInfo &info) {
  Runtime *rt = RuntimeOf(info.Env());
  uint32_t threads = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().Uint32Value() : 1;
  threads = std::max(1u, std::min(threads, 64u));
  while (rt->engines.size() < threads) {
    auto *e = static_cast<dp_engine *>(calloc(1, sizeof(dp_engine)));
    if (!e || dp_engine_start(e) != 0) {
      if (e) {
        dp_engine_stop(e);
        free(e);
      }
      Napi::Error::New(info.Env(), "cannot start a native dataplane thread").ThrowAsJavaScriptException();
      return info.Env().Undefined();
    }
    rt->engines.push_back(e);
  }
  return Napi::Number::New(info.Env(), rt->engines.size());
}

Napi::Value Stop(const Napi::CallbackInfo &info) {
  Shutdown(RuntimeOf(info.Env()));
  return info.Env().Undefined();
}

Napi::Value AddNode(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  Runtime *rt = RuntimeOf(env);
  if (rt->engines.empty()) return Fail(env, "native dataplane not started"), env.Undefined();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber()) return Fail(env, "kind and ageing expected"), env.Undefined();
  // Independent nodes spread over the engine threads: the one with the fewest nodes takes the new one.
  dp_engine *e = *std::min_element(rt->engines.begin(), rt->engines.end(), [](dp_engine *a, dp_engine *b) { return a->nnodes < b->nnodes; });
  auto *n = static_cast<dp_node *>(calloc(1, sizeof(dp_node)));
  if (!n || dp_mac_init(&n->macs, (uint64_t)(info[1].As<Napi::Number>().DoubleValue() * 1e6)) != 0) {
    free(n);
    Napi::Error::New(env, "out of memory").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  n->kind = info[0].As<Napi::Number>().Int32Value() == DP_HUB ? DP_HUB : DP_SWITCH;
  n->eng = e;
  auto slot = std::find(rt->nodes.begin(), rt->nodes.end(), nullptr);
  n->handle = static_cast<uint32_t>(slot - rt->nodes.begin());
  if (slot == rt->nodes.end()) rt->nodes.push_back(n);
  else *slot = n;
  Locked lock(e);
  n->next = e->nodes;
  e->nodes = n;
  e->nnodes++;
  return Napi::Number::New(env, n->handle);
}

Napi::Value RemoveNode(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  if (n) DestroyNode(RuntimeOf(info.Env()), n);
  return info.Env().Undefined();
}

// setPorts(handle, Int32Array [number, mode, vlan, tpid]*): kept ports keep their NIO and take the new settings; the caller has closed the NIOs of removed ports.
Napi::Value SetPorts(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  if (!n) return env.Undefined();
  if (info.Length() < 2 || !info[1].IsTypedArray()) return Fail(env, "Int32Array of port settings expected"), env.Undefined();
  Napi::Int32Array cfg = info[1].As<Napi::Int32Array>();
  uint32_t count = static_cast<uint32_t>(cfg.ElementLength() / 4);
  auto **ports = static_cast<dp_port **>(calloc(count ? count : 1, sizeof(dp_port *)));
  auto **active = static_cast<dp_port **>(calloc(count ? count : 1, sizeof(dp_port *)));
  if (!ports || !active) {
    free(ports);
    free(active);
    Napi::Error::New(env, "out of memory").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  dp_engine *e = n->eng;
  Locked lock(e);
  for (uint32_t i = 0; i < count; i++) {
    int32_t number = cfg[i * 4];
    dp_port *p = FindPort(n, number);
    if (!p) {
      p = static_cast<dp_port *>(calloc(1, sizeof(dp_port)));
      if (!p) continue;
      p->number = number;
      p->node = n;
    }
    p->mode = static_cast<uint8_t>(cfg[i * 4 + 1]);
    p->vlan = static_cast<uint16_t>(cfg[i * 4 + 2]);
    p->tpid = static_cast<uint16_t>(cfg[i * 4 + 3]);
    ports[i] = p;
  }
  std::vector<dp_port *> removed;
  for (uint32_t i = 0; i < n->nports; i++)
    if (std::find(ports, ports + count, n->ports[i]) == ports + count) removed.push_back(n->ports[i]);
  for (dp_port *p : removed) dp_nio_close(e, p);
  for (dp_port *p : removed) FreePort(e, p);
  std::sort(ports, ports + count, [](dp_port *a, dp_port *b) { return a->number < b->number; });
  free(n->ports);
  free(n->active);
  n->ports = ports;
  n->nports = count;
  n->active = active;
  dp_node_set_active(n);
  if (n->kind == DP_SWITCH) dp_mac_flush_all(&n->macs);
  return env.Undefined();
}

Napi::Value SetNodeSuspended(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  if (!n) return info.Env().Undefined();
  Locked lock(n->eng);
  n->suspended = info[1].ToBoolean().Value();
  return info.Env().Undefined();
}

// openNio(handle, port, family 4|6, bindAddress, lport, remoteAddress, rport): undefined, or [step, errno] with step 1 socket, 2 bind, 3 connect.
Napi::Value OpenNio(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return env.Undefined();
  if (info.Length() < 7 || !info[3].IsString() || !info[5].IsString()) return Fail(env, "tunnel arguments expected"), env.Undefined();
  std::string bind = info[3].As<Napi::String>().Utf8Value(), remote = info[5].As<Napi::String>().Utf8Value();
  int family = info[2].As<Napi::Number>().Int32Value(), lport = info[4].As<Napi::Number>().Int32Value(), rport = info[6].As<Napi::Number>().Int32Value();
  Locked lock(n->eng);
  if (p->nio) return Fail(env, "port already has a NIO"), env.Undefined();
  int stage = 0;
  int err = dp_nio_open(n->eng, p, family, bind.c_str(), lport, remote.c_str(), rport, &stage);
  if (!err) return env.Undefined();
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, stage));
  out.Set(1u, Napi::Number::New(env, err));
  return out;
}

// openHostNio(handle, port, kind 1 TAP | 2 AF_PACKET, ifname, offload = true): 0, or an errno (opening the device or socket, TUNSETIFF, TUNSETOFFLOAD or bind, bringing a TAP up). A TAP gets TCP offloads (offload.c) unless offload is false.
Napi::Value OpenHostNio(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return env.Undefined();
  if (info.Length() < 4 || !info[2].IsNumber() || !info[3].IsString()) return Fail(env, "kind and interface name expected"), env.Undefined();
  int kind = info[2].As<Napi::Number>().Int32Value() == DP_HOST_TAP ? DP_HOST_TAP : DP_HOST_ETHERNET;
  std::string ifname = info[3].As<Napi::String>().Utf8Value();
  int offload = info.Length() < 5 || !info[4].IsBoolean() || info[4].As<Napi::Boolean>().Value();
  Locked lock(n->eng);
  if (p->nio) return Fail(env, "port already has a NIO"), env.Undefined();
  return Napi::Number::New(env, dp_nio_open_host(n->eng, p, kind, ifname.c_str(), offload));
}

Napi::Value CloseNio(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return info.Env().Undefined();
  Locked lock(n->eng);
  dp_nio_close(n->eng, p);
  return info.Env().Undefined();
}

// setFilters(handle, port, Float64Array spec, Uint32Array[] programs): spec = frequency_drop, packet_loss, delay_ms, jitter_ms, corrupt, rate_kbps, duplicate; null spec = none.
Napi::Value SetFilters(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return env.Undefined();
  dp_filters *f = nullptr;
  if (info.Length() > 2 && info[2].IsTypedArray()) {
    Napi::Float64Array s = info[2].As<Napi::Float64Array>();
    if (s.ElementLength() < 7) return Fail(env, "7 filter values expected"), env.Undefined();
    dp_filter_spec spec = {s[0], s[1], s[2], s[3], s[4], s[5], s[6]};
    std::vector<const uint32_t *> progs;
    std::vector<uint32_t> lens;
    if (info.Length() > 3 && info[3].IsArray()) {
      Napi::Array list = info[3].As<Napi::Array>();
      for (uint32_t i = 0; i < list.Length(); i++) {
        Napi::Value v = list.Get(i);
        if (!v.IsTypedArray()) return Fail(env, "bpf programs must be Uint32Arrays"), env.Undefined();
        Napi::Uint32Array prog = v.As<Napi::Uint32Array>();
        progs.push_back(prog.Data());
        lens.push_back(static_cast<uint32_t>(prog.ElementLength() / 4));
      }
    }
    f = dp_filters_new(&spec, static_cast<uint32_t>(progs.size()), progs.data(), lens.data());
    if (!f) {
      Napi::Error::New(env, "out of memory").ThrowAsJavaScriptException();
      return env.Undefined();
    }
  }
  Locked lock(n->eng);
  if (p->filters) dp_filters_free(p->filters, &p->c);
  p->filters = f;
  UpdateTimed(n->eng, p);
  return env.Undefined();
}

Napi::Value SetPortSuspended(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return info.Env().Undefined();
  Locked lock(n->eng);
  p->suspended = info[2].ToBoolean().Value();
  return info.Env().Undefined();
}

Napi::Value ResetCounters(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return info.Env().Undefined();
  Locked lock(n->eng);
  memset(&p->c, 0, sizeof p->c);
  return info.Env().Undefined();
}

// startCapture(handle, port, fd, linkType): 0 or an errno. The engine writes to its own duplicate of fd (opened by the caller, which keeps it).
Napi::Value StartCapture(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return env.Undefined();
  if (info.Length() < 4 || !info[2].IsNumber()) return Fail(env, "capture file descriptor expected"), env.Undefined();
  int err = 0;
  dp_pcap *pc = dp_pcap_open_fd(info[2].As<Napi::Number>().Int32Value(), info[3].As<Napi::Number>().Uint32Value(), &err);
  if (!pc) return Napi::Number::New(env, err);
  Locked lock(n->eng);
  if (p->capture) dp_pcap_close(p->capture);
  p->capture = pc;
  UpdateTimed(n->eng, p);
  return Napi::Number::New(env, 0);
}

Napi::Value StopCapture(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return info.Env().Undefined();
  Locked lock(n->eng);
  if (p->capture) dp_pcap_close(p->capture);
  p->capture = nullptr;
  UpdateTimed(n->eng, p);
  return info.Env().Undefined();
}

// captureError(handle, port): 0 while the port's capture writes (or it has none), else the errno that stopped it.
Napi::Value CaptureError(const Napi::CallbackInfo &info) {
  dp_node *n = NodeArg(info, 0);
  dp_port *p = PortArg(info, n, 1);
  if (!p) return info.Env().Undefined();
  Locked lock(n->eng);
  return Napi::Number::New(info.Env(), p->capture ? dp_pcap_error(p->capture) : 0);
}

// stats(handle): Float64Array of [port, framesIn, bytesIn, framesOut, bytesOut, drops, errors] per port, in port order.
Napi::Value Stats(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  if (!n) return env.Undefined();
  Locked lock(n->eng);
  Napi::Float64Array out = Napi::Float64Array::New(env, n->nports * 7);
  for (uint32_t i = 0; i < n->nports; i++) {
    const dp_port *p = n->ports[i];
    const double row[7] = {static_cast<double>(p->number), static_cast<double>(p->c.frames_in), static_cast<double>(p->c.bytes_in),
                           static_cast<double>(p->c.frames_out), static_cast<double>(p->c.bytes_out), static_cast<double>(p->c.drops),
                           static_cast<double>(p->c.errors)};
    for (int k = 0; k < 7; k++) out[i * 7 + k] = row[k];
  }
  return out;
}

// macTable(handle): Float64Array of [vlan, mac (48-bit number), port, age ms] per live entry.
Napi::Value MacTable(const Napi::CallbackInfo &info) {
  Napi::Env env = info.Env();
  dp_node *n = NodeArg(info, 0);
  if (!n) return env.Undefined();
  std::vector<double> rows;
  {
    Locked lock(n->eng);
    uint64_t now = dp_now();
    const dp_mactable &t = n->macs;
    for (uint32_t i = 0; i < t.cap; i++) {
      const dp_mac_entry &s = t.slots[i];
      if (!s.key || (t.ageing_ns && now - s.seen > t.ageing_ns)) continue;
      rows.push_back(static_cast<double>(s.key >> 48));
      rows.push_back(static_cast<double>(s.key & 0xffffffffffffull));
      rows.push_back(static_cast<double>(s.port->number));
      rows.push_back(static_cast<double>(now - s.seen) / 1e6);
    }
  }
  Napi::Float64Array out = Napi::Float64Array::New(env, rows.size());
  for (size_t i = 0; i < rows.size(); i++) out[i] = rows[i];
  return out;
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("start", Napi::Function::New(env, Start));
  exports.Set("stop", Napi::Function::New(env, Stop));
  exports.Set("addNode", Napi::Function::New(env, AddNode));
  exports.Set("removeNode", Napi::Function::New(env, RemoveNode));
  exports.Set("setPorts", Napi::Function::New(env, SetPorts));
  exports.Set("setNodeSuspended", Napi::Function::New(env, SetNodeSuspended));
  exports.Set("openNio", Napi::Function::New(env, OpenNio));
  exports.Set("openHostNio", Napi::Function::New(env, OpenHostNio));
  exports.Set("closeNio", Napi::Function::New(env, CloseNio));
  exports.Set("setFilters", Napi::Function::New(env, SetFilters));
  exports.Set("setPortSuspended", Napi::Function::New(env, SetPortSuspended));
  exports.Set("resetCounters", Napi::Function::New(env, ResetCounters));
  exports.Set("startCapture", Napi::Function::New(env, StartCapture));
  exports.Set("stopCapture", Napi::Function::New(env, StopCapture));
  exports.Set("captureError", Napi::Function::New(env, CaptureError));
  exports.Set("stats", Napi::Function::New(env, Stats));
  exports.Set("macTable", Napi::Function::New(env, MacTable));
  InitHostWatch(env, exports);
  return exports;
}

}  // namespace

NODE_API_MODULE(emuctl_dataplane, Init)
