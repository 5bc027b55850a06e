#include "server/sse.h"
int wg_sse__execute(wg_res *res, const wg_req *req) { (void)req; return wg_res_error(res, 501, "X", "x"); }
