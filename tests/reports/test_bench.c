/* llama-bench results: written in its shapes, read back, and its own files imported. */
#include "reports/reports.h"
#include "tests/check.h"

#include <string.h>
#include <unistd.h>

/* The shape llama-bench -o json prints (fields abridged, values from its README). */
static const char llama_bench_json[] =
    "[{\"build_commit\":\"8cf427ff\",\"build_number\":5163,\"cpu_info\":\"AMD Ryzen 7 7800X3D\","
    "\"gpu_info\":\"NVIDIA GeForce RTX 4080\",\"backends\":\"CUDA\",\"model_filename\":\"q.gguf\","
    "\"model_type\":\"qwen2 7B Q4_K - Medium\",\"model_size\":4677120000,\"model_n_params\":7615616512,"
    "\"n_batch\":2048,\"n_ubatch\":512,\"n_threads\":8,\"cpu_strict\":false,\"type_k\":\"f16\",\"type_v\":\"f16\","
    "\"n_gpu_layers\":-1,\"flash_attn\":-1,\"n_prompt\":512,\"n_gen\":0,\"n_depth\":0,"
    "\"test_time\":\"2025-04-24T11:58:50Z\",\"avg_ns\":72135640,\"stddev_ns\":1453752,"
    "\"avg_ts\":7100.002165,\"stddev_ts\":140.341520,"
    "\"samples_ns\":[74601900,71632900,71745200,71952700,70745500],"
    "\"samples_ts\":[6863.1,7147.55,7136.37,7115.79,7237.21]},"
    "{\"model_type\":\"qwen2 7B Q4_K - Medium\",\"model_size\":4677120000,\"model_n_params\":7615616512,"
    "\"backends\":\"CUDA\",\"n_threads\":8,\"n_prompt\":0,\"n_gen\":128,\"n_depth\":512,\"avg_ts\":118.88,"
    "\"stddev_ts\":1.04}]\n";

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "w");
    fputs(text, fp);
    fclose(fp);
}

static char *render(const plan_bench_record *rows, int n, enum rep_format fmt) {
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    fc_err err = {0};
    CHECK(rep_bench_write(rows, n, fp, fmt, &err) == FC_OK);
    fclose(fp);
    return buf;
}

static int load_text(const char *path, const char *text, plan_bench_record **rows, int *n, fc_err *err) {
    write_file(path, text);
    return plan_bench_load(path, rows, n, err);
}

/* With a directory argument, also leaves bench.{md,csv,json,jsonl} there for
 * test_report_cli.sh to parse with Python's own readers. */
static void write_outputs(const char *dir, const plan_bench_record *rows, int n) {
    static const char *const ext[] = {"md", "csv", "json", "jsonl"};
    for (size_t i = 0; i < FC_ARRAY_LEN(ext); i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/bench.%s", dir, ext[i]);
        enum rep_format fmt;
        fc_err err = {0};
        FILE *fp = fopen(path, "w");
        CHECK(fp && rep_format_parse(ext[i], &fmt, &err) == FC_OK);
        if (fp) {
            CHECK(rep_bench_write(rows, n, fp, fmt, &err) == FC_OK);
            fclose(fp);
        }
    }
}

int main(int argc, char **argv) {
    char path[64];
    snprintf(path, sizeof path, "/tmp/fc_test_bench.%d.json", (int)getpid());
    fc_err err = {0};
    plan_bench_record *rows;
    int n;

    CHECK_MSG(load_text(path, llama_bench_json, &rows, &n, &err) == FC_OK, "%s", err.msg);
    CHECK(n == 2);
    if (n == 2) {
        CHECK(rows[0].model_size == 4677120000ull && rows[0].n_gpu_layers == -1 && rows[0].n_samples == 5);
        CHECK(rows[0].build_number == 5163 && rows[1].build_number == 0);
        CHECK_NEAR(rows[0].avg_ts, 7100.002165, 1e-6);
        char name[64];
        CHECK(!strcmp(plan_bench_test_name(&rows[0].test, name, sizeof name), "pp512"));
        CHECK(!strcmp(plan_bench_test_name(&rows[1].test, name, sizeof name), "tg128 @ d512"));

        /* Line for line what llama-bench prints for these two tests (its
         * markdown_printer: the columns its defaults leave, at its widths). */
        char *md = render(rows, n, REP_FMT_MD);
        const char *want = "| model                          |       size |     params | backend    | ngl |            test |                  t/s |\n"
                           "| ------------------------------ | ---------: | ---------: | ---------- | --: | --------------: | -------------------: |\n"
                           "| qwen2 7B Q4_K - Medium         |   4.36 GiB |     7.62 B | CUDA       |  -1 |           pp512 |     7100.00 \u00b1 140.34 |\n";
        CHECK_MSG(strncmp(md, want, strlen(want)) == 0, "not llama-bench's table:\n%s", md);
        CHECK_MSG(strstr(md, "| CUDA       |   0 |    tg128 @ d512 |        118.88 \u00b1 1.04 |"), "second row:\n%s", md);
        CHECK_MSG(!strstr(md, "predicted"), "prediction column without predictions:\n%s", md);
        free(md);
        /* -fa 0 is llama-bench's default before -fa auto (PLAN_FA_AUTO_BUILD): no fa column there; after it, one */
        rows[0].flash_attn = rows[1].flash_attn = 0;
        rows[1].build_number = 5163;
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(!strstr(md, " fa "), "an old build's default -fa 0 as a column:\n%s", md);
        free(md);
        rows[0].build_number = PLAN_FA_AUTO_BUILD;
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(strstr(md, "| ngl |  fa |"), "-fa 0 of a current build without its column:\n%s", md);
        free(md);
        rows[0].flash_attn = rows[1].flash_attn = PLAN_BENCH_FA_AUTO;
        rows[0].build_number = 5163;
        rows[1].build_number = 0;
        /* llama-bench's rule: a GPU backend's table shows ngl, a CPU's threads */
        snprintf(rows[1].backends, sizeof rows[1].backends, "CPU");
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(strstr(md, "| backend    | ngl | threads |") && strstr(md, "| CPU        |   0 |       8 |"),
                  "a CPU row beside a CUDA one:\n%s", md);
        free(md);
        /* a Mac's build has BLAS beside Metal: llama-bench counts it a CPU backend */
        snprintf(rows[0].backends, sizeof rows[0].backends, "MTL,BLAS");
        snprintf(rows[1].backends, sizeof rows[1].backends, "MTL,BLAS");
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(!strstr(md, " ngl |") && strstr(md, "| MTL,BLAS   |       8 |"), "Metal rows as llama-bench:\n%s", md);
        free(md);
        /* off its defaults (-ub 512, -fa auto) llama-bench adds the column */
        rows[0].n_ubatch = rows[1].n_ubatch = 1024;
        rows[0].flash_attn = rows[1].flash_attn = 0;
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(strstr(md, "| threads | n_ubatch |  fa |") && strstr(md, "|       8 |     1024 |   0 |"),
                  "n_ubatch and fa:\n%s", md);
        free(md);
        /* -ts: llama-bench's ts column, its default "0.00" not shown */
        snprintf(rows[1].tensor_split, sizeof rows[1].tensor_split, "0.00");
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(!strstr(md, " ts "), "default tensor_split shown:\n%s", md);
        free(md);
        snprintf(rows[1].tensor_split, sizeof rows[1].tensor_split, "41.00/39.00");
        md = render(rows, n, REP_FMT_MD);
        CHECK_MSG(strstr(md, "|  fa | ts           |") && strstr(md, "|   0 | 41.00/39.00  |"), "ts:\n%s", md);
        free(md);
        rows[1].tensor_split[0] = '\0';
        rows[0].n_ubatch = rows[1].n_ubatch = 512;
        rows[0].flash_attn = rows[1].flash_attn = PLAN_BENCH_FA_AUTO;
        snprintf(rows[0].backends, sizeof rows[0].backends, "CUDA");
        snprintf(rows[1].backends, sizeof rows[1].backends, "CUDA");
        if (argc > 1) write_outputs(argv[1], rows, n);

        /* Round trip through our own jsonl, with a prediction added. */
        rows[1].predicted_ts = 100.0;
        FILE *fp = fopen(path, "w");
        CHECK(rep_bench_write(rows, n, fp, REP_FMT_JSONL, &err) == FC_OK);
        fclose(fp);
        plan_bench_record *back;
        int nb;
        CHECK_MSG(plan_bench_load(path, &back, &nb, &err) == FC_OK, "%s", err.msg);
        CHECK(nb == 2);
        if (nb == 2) {
            CHECK(!strcmp(back[0].cpu_info, rows[0].cpu_info) && back[0].n_ubatch == 512);
            CHECK_NEAR(back[0].samples_ts[4], 7237.21, 1e-6);
            CHECK_NEAR(back[1].predicted_ts, 100.0, 1e-9);
            CHECK(back[1].test.n_depth == 512);
            char *md2 = render(back, nb, REP_FMT_MD);
            CHECK_MSG(strstr(md2, "predicted t/s") && strstr(md2, "-16%"), "prediction error:\n%s", md2);
            CHECK_MSG(!strstr(md2, "type_k"), "f16 cache types shown:\n%s", md2);
            free(md2);
            /* each cache type off f16 gets its column, as llama-bench's -ctk alone does */
            snprintf(back[1].type_k, sizeof back[1].type_k, "q8_0");
            md2 = render(back, nb, REP_FMT_MD);
            CHECK_MSG(strstr(md2, "| ngl | type_k |") && !strstr(md2, "type_v") && strstr(md2, "| q8_0   |"),
                      "cache types:\n%s", md2);
            free(md2);
        }
        free(back);
        char *csv = render(rows, n, REP_FMT_CSV);
        /* llama-bench's fields in its order (get_fields), build_number second; engine and isa are fitcheck's */
        const char head[] = "build_commit,build_number,cpu_info,gpu_info,backends,engine,isa,model_filename,"
                            "model_type,";
        CHECK_MSG(strncmp(csv, head, sizeof head - 1) == 0, "csv header: %.120s", csv);
        /* llama-bench's own rows are llama.cpp's: calibrate reads the engine. */
        CHECK(strstr(csv, "\"CUDA\",\"llama.cpp\",\"\",\"q.gguf\"") != NULL);
        CHECK(strstr(csv, "\"8cf427ff\",\"5163\",") != NULL);
        CHECK(!strstr(csv, "samples_ns"));
        /* our csv reads back through the one reader */
        plan_bench_record *fromcsv = NULL;
        int nc = 0;
        CHECK_MSG(plan_bench_parse(csv, strlen(csv), "bench.csv", &fromcsv, &nc, &err) == FC_OK, "%s", err.msg);
        CHECK(nc == 2 && fromcsv && fromcsv[1].test.n_depth == 512 && fromcsv[0].avg_ts == rows[0].avg_ts &&
              !strcmp(fromcsv[0].model_type, rows[0].model_type));
        free(fromcsv);
        free(csv);
    }
    free(rows);

    /* flash_attn as older llama-bench builds write it (a bool), and the same
     * record as llama-bench -o csv writes it: one reader, one record. */
    static const char bool_fa[] = "{\"model_type\":\"llama 1B Q4_0\",\"model_size\":636174336,"
                                  "\"model_n_params\":1100048384,\"flash_attn\":true,\"n_prompt\":512,"
                                  "\"n_gen\":128,\"n_depth\":4096,\"avg_ts\":60.5}\n";
    static const char csv_fa[] = "build_commit,model_type,model_size,model_n_params,flash_attn,n_prompt,n_gen,"
                                 "n_depth,test_time,avg_ts\n"
                                 "\"b1\",\"llama 1B Q4_0\",\"636174336\",\"1100048384\",\"1\",\"512\",\"128\","
                                 "\"4096\",\"\",\"60.500000\"\r\n";
    plan_bench_record *a = NULL, *b = NULL;
    int na = 0, nb2 = 0;
    CHECK_MSG(plan_bench_parse(bool_fa, strlen(bool_fa), "fa.jsonl", &a, &na, &err) == FC_OK, "%s", err.msg);
    CHECK_MSG(plan_bench_parse(csv_fa, strlen(csv_fa), "fa.csv", &b, &nb2, &err) == FC_OK, "%s", err.msg);
    CHECK(na == 1 && nb2 == 1);
    if (na == 1 && nb2 == 1) {
        char name[PLAN_BENCH_NAME_MAX];
        CHECK(a[0].flash_attn == 1 && b[0].flash_attn == 1);
        CHECK(!strcmp(plan_bench_test_name(&b[0].test, name, sizeof name), "pp512+tg128 @ d4096"));
        CHECK(a[0].avg_ts == b[0].avg_ts && a[0].model_size == b[0].model_size && plan_bench_same_test(&a[0], &b[0]));
    }
    free(a);
    free(b);

    /* Predictions pair with measurements by test, not position. */
    plan_bench_record runs[4];
    memset(runs, 0, sizeof runs);
    for (int i = 0; i < 4; i++) {
        runs[i].model_n_params = 1000;
        runs[i].model_size = 500;
        runs[i].test.n_prompt = i % 2 ? 0 : 512;
        runs[i].test.n_gen = i % 2 ? 128 : 0;
        runs[i].avg_ts = 10 * (i + 1);
    }
    snprintf(runs[2].build_commit, sizeof runs[2].build_commit, PLAN_BENCH_PREDICTED); /* pp512, 30 */
    runs[2].test.n_prompt = 0, runs[2].test.n_gen = 128;                                  /* now tg128 */
    snprintf(runs[3].build_commit, sizeof runs[3].build_commit, PLAN_BENCH_PREDICTED);
    runs[3].test.n_prompt = 512, runs[3].test.n_gen = 0;                                  /* pp512, 40 */
    int nr = 4;
    plan_bench_predict_records(runs, &nr, NULL, NULL, NULL, 0);
    CHECK(nr == 2);
    CHECK_NEAR(runs[0].predicted_ts, 40, 1e-9); /* pp512 measured 10, its prediction is the 4th record */
    CHECK_NEAR(runs[1].predicted_ts, 30, 1e-9); /* tg128 measured 20, its prediction is the 3rd */

    /* Hostile and broken files: FC_EINPUT naming the record and the field. */
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"[{\"n_prompt\":\"512\",\"n_gen\":0,\"avg_ts\":1}]", "n_prompt"},
        {"{\"n_prompt\":512,\"n_gen\":0}", "avg_ts"},
        {"{\"n_prompt\":-5,\"n_gen\":0,\"avg_ts\":1}", "out of range"},
        {"{\"n_prompt\":1e30,\"n_gen\":0,\"avg_ts\":1}", "out of range"},
        {"{\"n_prompt\":1,\"n_gen\":0,\"avg_ts\":1}\nnot json\n", ":2:"},
        {"{\"n_prompt\":0,\"n_gen\":0,\"avg_ts\":1}", "neither"},
        {"[]", "no benchmark records"},
        {"{\"n_prompt\":1,\"n_gen\":0,\"avg_ts\":1,\"flash_attn\":2}", "flash_attn"},
        {"n_prompt,n_gen,avg_ts\n\"1\",\"0\",\"1\n", "open quote"},
        {"n_prompt,n_gen,avg_ts\n\"1\",\"0\"\n", "header has 3"},
        {"n_prompt,n_gen,avg_ts\n1,0,0x10\n", ":2: field 'avg_ts'"},
        {"[{\"n_prompt\":1,\"n_gen\":0,\"avg_ts\":1,\"samples_ts\":[1,\"x\"]}]", "samples_ts[1]"},
    };
    for (size_t i = 0; i < FC_ARRAY_LEN(bad); i++) {
        fc_err_clear(&err);
        int rc = load_text(path, bad[i].text, &rows, &n, &err);
        CHECK_MSG(rc == FC_EINPUT && strstr(err.msg, bad[i].msg), "case %zu: rc %d, '%s'", i, rc, err.msg);
        CHECK(rows == NULL);
    }
    unlink(path);
    CHECK(plan_bench_load("/nonexistent/runs.jsonl", &rows, &n, &err) == FC_EINPUT);
    return check_done("bench");
}
