/* commands.h - the subcommands of the winnow binary.
 * Each takes the arguments after its name (argv[0] is the command name) and
 * returns the exit status. */
#ifndef WINNOW_COMMANDS_H
#define WINNOW_COMMANDS_H

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} winnow_command;

int cmd_score_extraction(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_tokenize(int argc, char **argv);
int cmd_vocab(int argc, char **argv);
int cmd_shard(int argc, char **argv);
int cmd_shards(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_dedup(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_slurm(int argc, char **argv);

#endif
