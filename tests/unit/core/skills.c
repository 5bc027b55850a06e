/* Tests for skill front matter, names, sets, install validation and the
 * atomic install (spec 3.3; original-facts 3.3-3.4, 13 item 22). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "waggle/skills.h"
#include "waggle/error.h"
#include "wgtest.h"

#define STARTER_DIR WG_TEST_DATA_DIR "/trust/starter"

Test(skills, front_matter_block_permissions)
{
    wg_skill_meta m;
    const char *t = "---\nname: x\ndescription: \"Does x\"\npermissions:\n  fileSystem: true\n"
                    "  network: false\n  secrets: yes\n---\n# Body\n";
    cr_assert_eq(wg_skill_meta_parse(&m, t), 0);
    cr_expect_str_eq(m.name, "x");
    cr_expect_str_eq(m.description, "Does x");
    cr_expect(m.permissions.present);
    cr_expect(m.permissions.perms[WG_PERM_FILE_SYSTEM]);
    cr_expect(!m.permissions.perms[WG_PERM_NETWORK]);
    cr_expect(m.permissions.perms[WG_PERM_SECRETS]);
    cr_expect_str_eq(t + m.body_offset, "# Body\n");
    wg_skill_meta_clear(&m);
}

Test(skills, front_matter_inline_list_and_none)
{
    wg_skill_meta m;
    cr_assert_eq(wg_skill_meta_parse(&m, "---\npermissions: [network, \"codeExecution\"]\n---\n"), 0);
    cr_expect(m.permissions.present);
    cr_expect(m.permissions.perms[WG_PERM_NETWORK]);
    cr_expect(m.permissions.perms[WG_PERM_CODE_EXECUTION]);
    wg_skill_meta_clear(&m);
    cr_assert_eq(wg_skill_meta_parse(&m, "---\r\npermissions: none\r\n---\r\n"), 0);
    cr_expect(m.permissions.present);
    for (int p = 0; p < WG_PERM_COUNT; p++)
        cr_expect(!m.permissions.perms[p]);
    wg_skill_meta_clear(&m);
}

Test(skills, no_front_matter_and_unclosed)
{
    wg_skill_meta m;
    cr_assert_eq(wg_skill_meta_parse(&m, "# Title\n---\nname: y\n"), 0);
    cr_expect_null(m.name);
    cr_expect(!m.permissions.present);
    cr_expect_eq(m.body_offset, 0);
    cr_expect_eq(wg_skill_meta_parse(&m, "---\nname: y\n"), WG_EINVAL);
    cr_expect_eq(wg_skill_meta_parse(&m, "----\nname: y\n---\n"), 0);
    cr_expect_null(m.name);
    cr_assert_eq(wg_skill_meta_parse(&m, NULL), 0);
}

Test(skills, name_check_refuses_traversal_and_odd_names)
{
    cr_expect_eq(wg_skill_name_check("risk-assessment"), 0);
    cr_expect_eq(wg_skill_name_check("v1.2_x"), 0);
    const char *bad[] = { "", "..", "../x", "a/b", "a\\b", ".hidden", "-x", "a b", "a..b",
                          "x\n", "0123456789012345678901234567890123456789012345678901234567890123456789" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_expect_eq(wg_skill_name_check(bad[i]), WG_EINVAL, "%s", bad[i]);
    cr_expect_eq(wg_skill_name_check(NULL), WG_EINVAL);
}

Test(skills, load_dir_keeps_valid_md_files_sorted)
{
    wg_skillset *s = NULL;
    cr_assert_eq(wg_skillset_load_dir(&s, STARTER_DIR), 0);
    cr_assert_eq(wg_skillset_count(s), 2);
    cr_expect_str_eq(wg_skillset_get(s, 0)->name, "alpha");
    cr_expect_str_eq(wg_skillset_get(s, 1)->name, "beta");
    const wg_skill *a = wg_skillset_find(s, "alpha");
    cr_expect_str_eq(a->description, "A test skill that reads the api_key");
    cr_expect(a->declared.present && a->declared.perms[WG_PERM_NETWORK]);
    cr_expect_str_eq(wg_skillset_find(s, "beta")->description, "Beta — second test skill");
    cr_expect_null(wg_skillset_find(s, "README"));
    cr_expect_str_eq(wg_skillset_dir(s), STARTER_DIR);
    wg_skillset_free(s);
    cr_assert_eq(wg_skillset_load_dir(&s, "/nonexistent/wg"), 0);
    cr_expect_eq(wg_skillset_count(s), 0);
    wg_skillset_free(s);
    wg_skillset_free(NULL);
}

Test(skills, embedded_pack_matches_data_skills)
{
    unsetenv(WG_SKILLS_STARTER_ENV);
    wg_skillset *e = NULL, *d = NULL;
    cr_assert_eq(wg_skillset_load_starter(&e), 0);
    cr_assert_eq(wg_skillset_load_dir(&d, WG_SOURCE_DIR "/data/skills"), 0);
    cr_expect_geq(wg_skillset_count(e), 20);
    cr_assert_eq(wg_skillset_count(e), wg_skillset_count(d));
    cr_expect_null(wg_skillset_dir(e));
    for (size_t i = 0; i < wg_skillset_count(e); i++) {
        const wg_skill *a = wg_skillset_get(e, i), *b = wg_skillset_get(d, i);
        cr_expect_str_eq(a->name, b->name);
        cr_expect_eq(a->length, b->length);
        cr_expect_eq(memcmp(a->content, b->content, a->length), 0);
    }
    wg_skillset_free(e);
    wg_skillset_free(d);
}

Test(skills, every_starter_skill_has_front_matter_and_steps)
{
    wg_skillset *e = NULL;
    unsetenv(WG_SKILLS_STARTER_ENV);
    cr_assert_eq(wg_skillset_load_starter(&e), 0);
    for (size_t i = 0; i < wg_skillset_count(e); i++) {
        const wg_skill *s = wg_skillset_get(e, i);
        wg_skill_meta m;
        cr_assert_eq(wg_skill_meta_parse(&m, s->content), 0, "%s", s->name);
        cr_expect_str_eq(m.name, s->name, "front matter name of %s", s->name);
        cr_expect_not_null(m.description, "%s has a description", s->name);
        cr_expect(m.permissions.present, "%s declares permissions", s->name);
        cr_expect_not_null(strstr(s->content, "## "), "%s has sections", s->name);
        cr_expect_not_null(strstr(s->content, "1. "), "%s has numbered steps", s->name);
        wg_skill_meta_clear(&m);
    }
    wg_skillset_free(e);
}

Test(skills, env_override_replaces_the_pack)
{
    setenv(WG_SKILLS_STARTER_ENV, STARTER_DIR, 1);
    wg_skillset *s = NULL;
    cr_assert_eq(wg_skillset_load_starter(&s), 0);
    cr_expect_eq(wg_skillset_count(s), 2);
    wg_skillset_free(s);
    setenv(WG_SKILLS_STARTER_ENV, "/nonexistent/wg", 1);
    cr_expect_eq(wg_skillset_load_starter(&s), WG_ENOTFOUND);
    unsetenv(WG_SKILLS_STARTER_ENV);
}

Test(skills, validate_install_order_and_messages)
{
    wg_skillset *s = NULL;
    cr_assert_eq(wg_skillset_load_dir(&s, STARTER_DIR), 0);
    const wg_skill *sk = NULL;
    cr_expect_eq(wg_skills_validate_install(&sk, s, NULL, "alpha", "starter-pack"), 0);
    cr_expect_str_eq(sk->name, "alpha");
    cr_expect_eq(wg_skills_validate_install(NULL, s, NULL, "../../etc/passwd", "starter-pack"), WG_EINVAL);
    cr_expect_str_eq(wg_error_last(), "Invalid capability name.");
    cr_expect_eq(wg_skills_validate_install(NULL, s, NULL, "alpha", "marketplace"), WG_EUNSUPPORTED);
    cr_expect_str_eq(wg_error_last(), "Source \"marketplace\" is not supported for installation. "
                     "Only \"starter-pack\" skills can be installed.");
    cr_expect_eq(wg_skills_validate_install(NULL, s, NULL, "gamma", "starter-pack"), WG_ENOTFOUND);
    cr_expect_str_eq(wg_error_last(), "Skill \"gamma\" not found in the starter pack.");
    cr_expect_eq(wg_skills_validate_install(NULL, s, s, "alpha", "starter-pack"), WG_EEXISTS);
    cr_expect_str_eq(wg_error_last(), "Skill \"alpha\" is already installed and active.");
    wg_skillset_free(s);
}

Test(skills, install_copies_atomically_and_never_overwrites)
{
    char *dir = wgt_tmpdir();
    wg_skillset *s = NULL;
    cr_assert_eq(wg_skillset_load_dir(&s, STARTER_DIR), 0);
    char *path = NULL;
    cr_assert_eq(wg_skills_install(&path, dir, s, "beta", "starter-pack"), 0, "%s", wg_error_last());
    char *want = NULL;
    cr_assert(asprintf(&want, "%s/skills/beta.md", dir) > 0);
    cr_expect_str_eq(path, want);
    char *got = wgt_read_file(path);
    cr_expect_str_eq(got, wg_skillset_find(s, "beta")->content);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    cr_expect_eq(st.st_mode & 0777, 0600);
    free(got);
    cr_expect_eq(wg_skills_install(NULL, dir, s, "beta", "starter-pack"), WG_EEXISTS);
    cr_expect_eq(wg_skills_install(NULL, dir, s, "../beta", "starter-pack"), WG_EINVAL);
    cr_expect_eq(wg_skills_install(NULL, dir, s, "beta", "mcp"), WG_EUNSUPPORTED);
    /* a file put there by hand is not replaced */
    cr_assert_eq(wgt_write_file(dir, "skills/alpha.md", "mine"), 0);
    cr_expect_eq(wg_skills_install(NULL, dir, s, "alpha", "starter-pack"), WG_EEXISTS);
    free(got = NULL);
    char *apath = NULL;
    cr_assert(asprintf(&apath, "%s/skills/alpha.md", dir) > 0);
    got = wgt_read_file(apath);
    cr_expect_str_eq(got, "mine");
    /* no temporary files left */
    wg_skillset *active = NULL;
    cr_assert_eq(wg_skillset_load_active(&active, dir), 0);
    cr_expect_eq(wg_skillset_count(active), 2);
    wg_skillset_free(active);
    free(got);
    free(apath);
    free(want);
    free(path);
    wg_skillset_free(s);
    wgt_rmtree(dir);
    free(dir);
}
