import ctypes,sys
lib=ctypes.CDLL('/usr/local/cuda-13.0/lib/libnvrtc.so.13')
src=open(sys.argv[1],'rb').read(); out=sys.argv[2]
opts=[b"--gpu-architecture=sm_90a",b"--std=c++17",b"--fmad=false",b"--prec-div=true",b"--prec-sqrt=true",b"--ftz=false",b"--generate-line-info",b"--diag-suppress=550",b"--minimal",b"--ptxas-options=-v"]+[o.encode() for o in sys.argv[3:]]
prog=ctypes.c_void_p()
r=lib.nvrtcCreateProgram(ctypes.byref(prog),src,b"k.cu",0,None,None); assert r==0,r
arr=(ctypes.c_char_p*len(opts))(*opts)
r=lib.nvrtcCompileProgram(prog,len(opts),arr)
n=ctypes.c_size_t(); lib.nvrtcGetProgramLogSize(prog,ctypes.byref(n)); log=ctypes.create_string_buffer(n.value); lib.nvrtcGetProgramLog(prog,log)
print('rc',r,log.value.decode()[-600:])
lib.nvrtcGetCUBINSize(prog,ctypes.byref(n)); buf=ctypes.create_string_buffer(n.value); lib.nvrtcGetCUBIN(prog,buf)
open(out,'wb').write(buf.raw)
lib.nvrtcGetPTXSize(prog,ctypes.byref(n)); buf=ctypes.create_string_buffer(n.value); lib.nvrtcGetPTX(prog,buf)
open(out.replace('.cubin','.ptx'),'wb').write(buf.value)
