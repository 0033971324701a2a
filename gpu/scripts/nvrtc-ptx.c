// nvrtc-ptx compiles one CUDA C file to PTX with NVRTC, for checking kernels on
// machines without nvcc or a GPU:  nvrtc-ptx ARCH IN.cu OUT.ptx
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

static char* slurp(const char* path) {
	FILE* f = fopen(path, "rb");
	if (!f) return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char* s = malloc(n + 1);
	if (fread(s, 1, n, f) != (size_t)n) n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

int main(int argc, char** argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: nvrtc-ptx ARCH IN.cu OUT.ptx\n");
		return 2;
	}
	char* src = slurp(argv[2]);
	if (!src) {
		perror(argv[2]);
		return 2;
	}
	char arch[64];
	snprintf(arch, sizeof arch, "--gpu-architecture=%s", argv[1]);
	const char* opts[] = {arch, "--std=c++17"};
	nvrtcProgram prog;
	if (nvrtcCreateProgram(&prog, src, argv[2], 0, NULL, NULL) != NVRTC_SUCCESS) return 1;
	nvrtcResult rc = nvrtcCompileProgram(prog, 2, opts);
	size_t n;
	nvrtcGetProgramLogSize(prog, &n);
	if (n > 1) {
		char* log = malloc(n);
		nvrtcGetProgramLog(prog, log);
		fprintf(stderr, "%s\n", log);
	}
	if (rc != NVRTC_SUCCESS) {
		fprintf(stderr, "%s: %s\n", argv[2], nvrtcGetErrorString(rc));
		return 1;
	}
	nvrtcGetPTXSize(prog, &n);
	char* ptx = malloc(n);
	nvrtcGetPTX(prog, ptx);
	FILE* out = fopen(argv[3], "wb");
	if (!out || fwrite(ptx, 1, n - 1, out) != n - 1) {
		perror(argv[3]);
		return 1;
	}
	fclose(out);
	return 0;
}
