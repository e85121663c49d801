{
  "targets": [
    {
      "target_name": "fixpoint_spawn",
      "sources": ["native/spawn.cc"],
      "cflags_cc": ["-std=c++17", "-O2"],
      "conditions": [["OS!='linux'", {"type": "none", "sources": []}]]
    }
  ]
}
