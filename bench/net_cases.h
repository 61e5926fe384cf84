/* SPDX-License-Identifier: GPL-3.0-or-later */
/* net_cases.h: the networks that bench_network times against their
 * recursions and test_network_paths runs on both of sim network's paths,
 * written once so that the bench measures the networks the test checks.
 * Header-only: the bench and the test each include it once. */
#ifndef QC_BENCH_NET_CASES_H
#define QC_BENCH_NET_CASES_H

#include "qctl/network.h"

enum { NET_MM1K, NET_MM2, NET_TANDEM, NET_CASES };

/* M/M/1/10 at 0.9 (loss); M/M/2 at 0.8; three M/M/1 in tandem at 0.9,
 * 0.8 and 0.7 (service rates 1/0.9, 1/0.8, 1/0.7) */
static const char *const net_case_json[NET_CASES] = {
    "{\"stations\":[{\"name\":\"s\",\"capacity\":10,\"service\":\"exp:1\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:0.9\",\"entry\":\"s\"}]}",
    "{\"stations\":[{\"name\":\"s\",\"servers\":2,\"service\":\"exp:1\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:1.6\",\"entry\":\"s\"}]}",
    "{\"stations\":[{\"name\":\"a\",\"service\":\"exp:1.1111111111\"},"
    "{\"name\":\"b\",\"service\":\"exp:1.25\"},{\"name\":\"c\",\"service\":\"exp:1.4285714286\"}],"
    "\"classes\":[{\"name\":\"x\",\"arrival\":\"exp:1\",\"entry\":\"a\"}],"
    "\"routing\":{\"x\":{\"a\":{\"b\":1},\"b\":{\"c\":1}}}}"};

/* parses case c into net: 0, or a QC_E* code with err set */
static inline int net_case(qc_network *net, int c, qc_err *err)
{
    return qc_network_parse(net, net_case_json[c], "net_cases.h", err);
}

#endif
