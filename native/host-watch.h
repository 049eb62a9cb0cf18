// The TypeScript engine's access to host-side NIOs (host-watch.cc).
#ifndef EMUCTL_HOST_WATCH_H
#define EMUCTL_HOST_WATCH_H
#include <napi.h>
void InitHostWatch(Napi::Env env, Napi::Object exports);
#endif
