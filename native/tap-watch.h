// The TypeScript engine's access to TAP devices (tap-watch.cc).
#ifndef EMUCTL_TAP_WATCH_H
#define EMUCTL_TAP_WATCH_H
#include <napi.h>
void InitTapWatch(Napi::Env env, Napi::Object exports);
#endif
