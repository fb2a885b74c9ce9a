#!/bin/bash
cd "$(dirname "$0")" && nice g++ -std=c++23 -O1 -fPIC -shared -Wno-comma-subscript -I/work/main/include -I/work/main/lib -I/work/main -I/work/main/third_party/dlpack/include rows.cpp /work/main/build/libkiln.a -lcrypto -lpthread -ldl -o librows.so
