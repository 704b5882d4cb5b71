/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_BENCH_CPU_H_
#define UET_BENCH_CPU_H_

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The benchmarks' first line: the CPU the figures below came from (model,
 * vendor, family and model numbers, CPUs online), from /proc/cpuinfo. */
static inline void
bench_print_cpu(void)
{
	char line[512], model[256] = "unknown", vendor[64] = "unknown vendor", fam[16] = "?",
							       mod[16] = "?";
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *v = strchr(line, ':');

		if (v == NULL)
			continue;
		v += strspn(v + 1, " \t") + 1;
		v[strcspn(v, "\n")] = '\0';
		if (strncmp(line, "model name", 10) == 0 && strcmp(model, "unknown") == 0)
			snprintf(model, sizeof(model), "%s", v);
		else if (strncmp(line, "vendor_id", 9) == 0 && strcmp(vendor, "unknown vendor") == 0)
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (strncmp(line, "cpu family", 10) == 0 && fam[0] == '?')
			snprintf(fam, sizeof(fam), "%s", v);
		else if (strncmp(line, "model\t", 6) == 0 && mod[0] == '?')
			snprintf(mod, sizeof(mod), "%s", v);
	}
	if (f != NULL)
		fclose(f);
	printf("# cpu: %s (%s, family %s model %s), %ld CPUs\n", model, vendor, fam, mod,
	       sysconf(_SC_NPROCESSORS_ONLN));
}

#endif
