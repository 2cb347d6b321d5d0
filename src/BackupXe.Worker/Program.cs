namespace BackupXe.Worker;

public static class Program
{
    public static int Main() => 0;
}
