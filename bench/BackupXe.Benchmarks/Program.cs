namespace BackupXe.Benchmarks;

public static class Program
{
    public static int Main() => 0;
}
