{
  "targets": [
    {
      "target_name": "emuctl_dataplane",
      "sources": [
        "native/binding.cc",
        "native/engine.c",
        "native/forward.c",
        "native/filters.c",
        "native/mactable.c",
        "native/bpf.c",
        "native/pcap.c",
        "native/host-nio.c",
        "native/offload.c",
        "native/tunnel-guard.c",
        "native/host-watch.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags": ["-O2", "-Wall"],
      "cflags_c": ["-std=gnu11", "-Wextra", "-Wno-unused-parameter"],
      "cflags_cc": ["-std=c++17"],
      "libraries": ["-lpthread", "-lm"]
    }
  ]
}
