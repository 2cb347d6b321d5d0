namespace BackupXe.Cli;

public static class Program
{
    public static int Main() => 0;
}
